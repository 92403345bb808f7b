// Colour for people: only on a terminal, never when NO_COLOR is set (https://no-color.org), never
// in what a script reads.
const enabled = (stream: { isTTY?: boolean }): boolean =>
  stream.isTTY === true && !process.env.NO_COLOR && process.env.TERM !== "dumb";

const paint =
  (code: number, stream: { isTTY?: boolean }) =>
  (text: string): string =>
    enabled(stream) ? `\x1b[${code}m${text}\x1b[0m` : text;

export const red = paint(31, process.stderr);
export const bold = paint(1, process.stdout);
