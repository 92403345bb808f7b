// The followers of the long-poll leg (bench/long-poll.ts): each on its own keep-alive connection
// asks `GET /v1/events?after=<cursor>&wait=30` again as soon as an answer comes back. Run as a
// worker thread, they keep the parsing of their answers off the bench's main thread, whose
// timings of another company's requests they would otherwise delay.
declare const self: Worker;

export interface FollowerCounts {
  answered: number;
  errors: number;
}

/** What the bench asks of the worker. */
export type FollowersMessage =
  | { open: { port: number; token: string; cursor: string; filter: string; count: number } }
  | { report: true }
  | { close: true };

/**
 * One follower on its own keep-alive connection: asks again with each page's next_cursor.
 * `filter` narrows its feed (`&type=project.created`).
 */
export async function follower(
  port: number,
  token: string,
  cursor: string,
  counts: FollowerCounts,
  filter = "",
) {
  let received = "";
  let after = cursor;
  const ask = (socket: { write(data: string): number }) =>
    socket.write(
      `GET /v1/events?after=${after}&wait=30${filter} HTTP/1.1\r\nHost: ` +
        `127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`,
    );
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(connection, chunk) {
        received += new TextDecoder().decode(chunk);
        const headEnd = received.indexOf("\r\n\r\n");
        if (headEnd === -1) return;
        const length = Number(/content-length: *(\d+)/i.exec(received.slice(0, headEnd))?.[1] ?? 0);
        if (received.length < headEnd + 4 + length) return;
        const status = Number(received.slice(9, 12));
        const body = received.slice(headEnd + 4, headEnd + 4 + length);
        received = received.slice(headEnd + 4 + length);
        if (status !== 200) {
          counts.errors += 1;
          return;
        }
        counts.answered += 1;
        after = (JSON.parse(body) as { meta: { next_cursor: string } }).meta.next_cursor;
        ask(connection);
      },
      error: () => {
        counts.errors += 1;
      },
    },
  });
  ask(socket);
  return socket;
}

if (!Bun.isMainThread) {
  const counts: FollowerCounts = { answered: 0, errors: 0 };
  const sockets: { end(): void }[] = [];
  self.onmessage = async (event: MessageEvent<FollowersMessage>) => {
    const message = event.data;
    if ("open" in message) {
      const { port, token, cursor, filter, count } = message.open;
      sockets.push(
        ...(await Promise.all(
          Array.from({ length: count }, () => follower(port, token, cursor, counts, filter)),
        )),
      );
    } else if ("close" in message) for (const socket of sockets.splice(0)) socket.end();
    self.postMessage({ ...counts });
  };
}
