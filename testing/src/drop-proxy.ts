// A TCP proxy that drops chosen answers: the server did the work, the client never hears of it
// (the interrupted-import tests).
import net from "node:net";

/**
 * A TCP proxy to the server on `port` that cuts both connections as the chosen answers (1-based,
 * in the order they start) begin to arrive: the server has done the work, the client never hears
 * of it.
 */
export async function dropProxy(
  port: number,
  drop: ReadonlySet<number>,
): Promise<{ url: string; answers: () => number; dropped: number[]; close: () => void }> {
  let answers = 0;
  const dropped: number[] = [];
  const proxy = net.createServer((client) => {
    const upstream = net.connect(port, "127.0.0.1");
    // An HTTP/1.1 connection carries one request at a time: the first bytes back after a request start its answer.
    let awaitingAnswer = false;
    client.on("data", (chunk) => {
      awaitingAnswer = true;
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => {
      if (awaitingAnswer) {
        awaitingAnswer = false;
        answers += 1;
        if (drop.has(answers)) {
          dropped.push(answers);
          client.destroy();
          upstream.destroy();
          return;
        }
      }
      client.write(chunk);
    });
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.on("error", () => {});
    upstream.on("error", () => {});
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`,
    answers: () => answers,
    dropped,
    close: () => proxy.close(),
  };
}
