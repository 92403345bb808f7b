// HTTP written byte by byte over a socket, for requests fetch() refuses to send: HTTP/1.0 without
// Host, malformed request lines, bodies streamed in chunks for as long as the server reads them,
// `Expect: 100-continue`.

export interface RawResponse {
  status: number;
  head: string;
  body: string;
}

/** A connection that collects what the server sends and notes when it is closed. */
async function connect(port: number) {
  const state = { received: "", closed: false };
  const closed = Promise.withResolvers<void>();
  const done = () => {
    state.closed = true;
    closed.resolve();
  };
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_socket, chunk) {
        state.received += new TextDecoder().decode(chunk);
      },
      close: done,
      error: done,
    },
  });
  return { socket, state, closed: closed.promise };
}

/** Sends `request` as is and reads until the server closes the connection or `timeoutMs` passes. */
export async function rawRequest(
  port: number,
  request: string,
  timeoutMs = 5_000,
): Promise<RawResponse> {
  const { socket, state, closed } = await connect(port);
  socket.write(request);
  await Promise.race([closed, Bun.sleep(timeoutMs)]);
  socket.end();
  return parse(state.received);
}

type Connection = Awaited<ReturnType<typeof connect>>;

/** An interim `100 Continue` is not the answer; a final status line is, and so is a closed connection. */
const INTERIM = /^HTTP\/1\.[01] 1\d\d[^\r]*\r\n(?:[^\r]+\r\n)*\r\n/;
const finalPart = (received: string): string => received.replace(INTERIM, "");
const answered = ({ state }: Connection): boolean =>
  state.closed || finalPart(state.received).includes("\r\n\r\n");

/** Writes `bytes` with back-pressure, and stops as soon as the server answers or closes. */
async function writeUntilAnswered(connection: Connection, bytes: Uint8Array): Promise<boolean> {
  let offset = 0;
  while (!answered(connection) && offset < bytes.length) {
    const written = connection.socket.write(bytes.subarray(offset));
    offset += Math.max(0, written);
    if (written <= 0) await Bun.sleep(1);
  }
  return offset === bytes.length;
}

/** Waits (up to 10 s) for the final answer, then closes and returns it with how much was written. */
async function finish(
  connection: Connection,
  bytesWritten: number,
): Promise<RawResponse & { bytesWritten: number }> {
  const deadline = Date.now() + 10_000;
  while (!answered(connection) && Date.now() < deadline) await Bun.sleep(10);
  await Bun.sleep(50);
  connection.socket.end();
  return { ...parse(connection.state.received), bytesWritten };
}

const headLines = (method: string, path: string, headers: Record<string, string>): string =>
  [
    `${method} ${path} HTTP/1.1`,
    "Host: 127.0.0.1",
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    "",
    "",
  ].join("\r\n");

/**
 * Streams a chunked body of `totalBytes` (in 64 KiB chunks) and stops writing as soon as the
 * server answers or closes, as a real client does. Returns the answer and how much was written.
 */
export async function chunkedUpload(
  port: number,
  path: string,
  headers: Record<string, string>,
  totalBytes: number,
): Promise<RawResponse & { bytesWritten: number }> {
  const connection = await connect(port);
  connection.socket.write(headLines("POST", path, { "Transfer-Encoding": "chunked", ...headers }));
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  const frame = new Uint8Array([
    ...new TextEncoder().encode(`${chunk.length.toString(16)}\r\n`),
    ...chunk,
    13,
    10,
  ]);
  let bytesWritten = 0;
  while (!answered(connection) && bytesWritten < totalBytes) {
    // Back-pressure: finish this frame before the next one.
    await writeUntilAnswered(connection, frame);
    bytesWritten += chunk.length;
    if (bytesWritten % (4 * 1024 * 1024) === 0) await Bun.sleep(0);
  }
  if (!answered(connection)) connection.socket.write("0\r\n\r\n");
  return finish(connection, bytesWritten);
}

/**
 * Sends a body of `totalBytes` declared by Content-Length. With `expectContinue` it sends
 * `Expect: 100-continue` and writes the body only after a `100 Continue`, as curl does; either
 * way it stops writing once the server gives its final answer.
 */
export async function lengthUpload(
  port: number,
  path: string,
  headers: Record<string, string>,
  totalBytes: number,
  expectContinue = false,
): Promise<RawResponse & { bytesWritten: number }> {
  const connection = await connect(port);
  connection.socket.write(
    headLines("POST", path, {
      "Content-Length": String(totalBytes),
      ...(expectContinue ? { Expect: "100-continue" } : {}),
      ...headers,
    }),
  );
  if (expectContinue) {
    const deadline = Date.now() + 10_000;
    while (
      !answered(connection) &&
      !INTERIM.test(connection.state.received) &&
      Date.now() < deadline
    )
      await Bun.sleep(5);
    if (answered(connection)) return finish(connection, 0);
  }
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  let bytesWritten = 0;
  while (bytesWritten < totalBytes && !answered(connection)) {
    const part = chunk.subarray(0, Math.min(chunk.length, totalBytes - bytesWritten));
    if (!(await writeUntilAnswered(connection, part))) break;
    bytesWritten += part.length;
    // As chunkedUpload: a server that keeps reading never fills the socket, and only a turn of the
    // event loop lets an answer that has arrived be seen.
    if (bytesWritten % (4 * 1024 * 1024) === 0) await Bun.sleep(0);
  }
  return finish(connection, bytesWritten);
}

/**
 * Sends `body` one byte every `intervalMs` (declared by Content-Length, or each byte a chunk of
 * its own), as a slow or hostile client does, until the server answers or closes or `giveUpMs`
 * passes. Returns the answer, how much was written and when the answer came (ms after the head).
 */
export async function trickledUpload(
  port: number,
  path: string,
  headers: Record<string, string>,
  body: string,
  options: { intervalMs: number; chunked?: boolean; giveUpMs?: number },
): Promise<RawResponse & { bytesWritten: number; answeredAfterMs: number }> {
  const connection = await connect(port);
  const framing: Record<string, string> = options.chunked
    ? { "Transfer-Encoding": "chunked" }
    : { "Content-Length": String(Buffer.byteLength(body)) };
  connection.socket.write(headLines("POST", path, { ...framing, ...headers }));
  const started = performance.now();
  const deadline = started + (options.giveUpMs ?? 30_000);
  let bytesWritten = 0;
  while (!answered(connection) && performance.now() < deadline) {
    if (bytesWritten < body.length) {
      const byte = body[bytesWritten]!;
      connection.socket.write(options.chunked ? `1\r\n${byte}\r\n` : byte);
      bytesWritten += 1;
    }
    const next = performance.now() + options.intervalMs;
    while (!answered(connection) && performance.now() < next) await Bun.sleep(10);
  }
  const answeredAfterMs = Math.round(performance.now() - started);
  return { ...(await finish(connection, bytesWritten)), answeredAfterMs };
}

function parse(received: string): RawResponse {
  const final = finalPart(received);
  const split = final.indexOf("\r\n\r\n");
  const head = split >= 0 ? final.slice(0, split) : final;
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(head);
  return {
    status: match ? Number(match[1]) : 0,
    head,
    body: split >= 0 ? final.slice(split + 4) : "",
  };
}
