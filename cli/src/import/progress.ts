// Import progress on stderr: a redrawn bar on a terminal, an occasional plain line otherwise.
import type { Output } from "../factory.ts";

export interface Counts {
  done: number;
  rejected: number;
  /** Characters of the file accounted for so far. */
  consumed: number;
}

const REDRAW_MS = 100;
const PLAIN_LINE_MS = 10_000;
const BAR_WIDTH = 24;

export class Progress {
  readonly #label: string;
  readonly #total: number | undefined;
  readonly #tty: boolean;
  readonly #started = Date.now();
  #last = 0;
  #drawn = false;

  /** `total` is the file size, unknown for stdin. */
  constructor(
    label: string,
    total: number | undefined,
    private readonly err: Output = process.stderr,
  ) {
    this.#label = label;
    this.#total = total;
    this.#tty = err.isTTY === true;
    this.#last = this.#tty ? 0 : Date.now();
  }

  update(counts: Counts): void {
    const now = Date.now();
    if (now - this.#last < (this.#tty ? REDRAW_MS : PLAIN_LINE_MS)) return;
    this.#last = now;
    const line = this.#line(counts);
    if (this.#tty) {
      this.err.write(`\r\x1b[2K${line}`);
      this.#drawn = true;
    } else {
      this.err.write(`${line}\n`);
    }
  }

  /** Prints a message above the bar. */
  log(message: string): void {
    this.clear();
    this.err.write(`${message}\n`);
  }

  /** Shows the final state on a terminal, then clears it: the summary follows. */
  finish(counts: Counts): void {
    if (!this.#tty) return;
    this.#last = 0;
    this.update(counts);
    this.clear();
  }

  clear(): void {
    if (this.#drawn) this.err.write("\r\x1b[2K");
    this.#drawn = false;
  }

  #line({ done, rejected, consumed }: Counts): string {
    const seconds = Math.max((Date.now() - this.#started) / 1000, 0.001);
    const rate = `${Math.round(done / seconds)} rows/s`;
    const counts = `${done} rows, ${rejected} rejected, ${rate}`;
    if (this.#total === undefined || this.#total === 0) return `${this.#label}: ${counts}`;
    const fraction = Math.min(consumed / this.#total, 1);
    // The rest of the file at the pace of what was read so far.
    const eta =
      fraction > 0 && fraction < 1 ? `, ETA ${clock((seconds * (1 - fraction)) / fraction)}` : "";
    const filled = Math.round(fraction * BAR_WIDTH);
    const bar = `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}]`;
    return this.#tty
      ? `${this.#label} ${bar} ${String(Math.floor(fraction * 100)).padStart(3)}%  ${counts}${eta}`
      : `${this.#label}: ${Math.floor(fraction * 100)}%, ${counts}${eta}`;
  }
}

/** Seconds as m:ss (h:mm:ss past an hour). */
function clock(seconds: number): string {
  const whole = Math.ceil(seconds);
  const [hours, minutes, rest] = [
    Math.floor(whole / 3600),
    Math.floor((whole % 3600) / 60),
    whole % 60,
  ];
  const pad = (n: number): string => String(n).padStart(2, "0");
  return hours > 0 ? `${hours}:${pad(minutes)}:${pad(rest)}` : `${minutes}:${pad(rest)}`;
}
