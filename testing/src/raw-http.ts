// HTTP written byte by byte over a socket, for requests fetch() refuses to send: HTTP/1.0 without
// Host, malformed request lines, bodies streamed in chunks for as long as the server reads them.

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
export async function rawRequest(port: number, request: string, timeoutMs = 5_000): Promise<RawResponse> {
  const { socket, state, closed } = await connect(port);
  socket.write(request);
  await Promise.race([closed, Bun.sleep(timeoutMs)]);
  socket.end();
  return parse(state.received);
}

/**
 * Streams a chunked body of `totalBytes` (in 64 KiB chunks) and stops writing as soon as the
 * server answers or closes, as a real client does. Returns the answer and how much was written.
 */
export async function chunkedUpload(port: number, path: string, headers: Record<string, string>, totalBytes: number): Promise<RawResponse & { bytesWritten: number }> {
  const { socket, state } = await connect(port);
  const answered = (): boolean => state.closed || state.received.includes("\r\n\r\n");
  const head = [`POST ${path} HTTP/1.1`, "Host: 127.0.0.1", "Transfer-Encoding: chunked", ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), "", ""].join("\r\n");
  socket.write(head);
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  const frame = new Uint8Array([...new TextEncoder().encode(`${chunk.length.toString(16)}\r\n`), ...chunk, 13, 10]);
  let bytesWritten = 0;
  while (!answered() && bytesWritten < totalBytes) {
    // Back-pressure: finish this frame before the next one.
    let offset = 0;
    while (!answered() && offset < frame.length) {
      const written = socket.write(frame.subarray(offset));
      offset += Math.max(0, written);
      if (written <= 0) await Bun.sleep(1);
    }
    bytesWritten += chunk.length;
    if (bytesWritten % (4 * 1024 * 1024) === 0) await Bun.sleep(0);
  }
  if (!answered()) socket.write("0\r\n\r\n");
  const deadline = Date.now() + 10_000;
  while (!answered() && Date.now() < deadline) await Bun.sleep(10);
  await Bun.sleep(50);
  socket.end();
  return { ...parse(state.received), bytesWritten };
}

function parse(received: string): RawResponse {
  const split = received.indexOf("\r\n\r\n");
  const head = split >= 0 ? received.slice(0, split) : received;
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(head);
  return { status: match ? Number(match[1]) : 0, head, body: split >= 0 ? received.slice(split + 4) : "" };
}
