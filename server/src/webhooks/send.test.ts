// Sending on Bun: the connection goes to the checked address whatever the name resolves to, the
// name still goes out as Host, a redirect is an answer (not followed), a silent receiver times out.
import { afterAll, expect, test } from "bun:test";
import { postTo } from "./send.ts";
import type { Target } from "./targets.ts";

const seen: { host: string | null; path: string }[] = [];
const receiver = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request): Promise<Response> {
    await request.text();
    const { pathname } = new URL(request.url);
    seen.push({ host: request.headers.get("host"), path: pathname });
    return pathname === "/moved" ? Response.redirect("/elsewhere", 302) : new Response("ok");
  },
});
const receiverPort = Number(receiver.url.port);
const silent = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });

afterAll(() => {
  receiver.stop(true);
  silent.stop(true);
});

/** A name no resolver knows, checked as 127.0.0.1. */
const target = (port: number, path: string): Target => ({
  url: new URL(`http://hooks.invalid:${port}${path}`),
  addresses: [{ address: "127.0.0.1", family: 4 }],
});

test("connects to the checked address, sends the URL's name as Host", async () => {
  expect(
    await postTo(
      target(receiverPort, "/hooks"),
      { "content-type": "application/json" },
      "{}",
      5_000,
    ),
  ).toBe(200);
  expect(seen.at(-1)).toEqual({ host: `hooks.invalid:${receiverPort}`, path: "/hooks" });
});

test("a redirect is the answer: it is not followed", async () => {
  const before = seen.length;
  expect(await postTo(target(receiverPort, "/moved"), {}, "{}", 5_000)).toBe(302);
  await Bun.sleep(50);
  expect(seen.slice(before).map((request) => request.path)).toEqual(["/moved"]);
});

test("a receiver that never answers fails the attempt after the timeout", async () => {
  const started = performance.now();
  const failure = await postTo(target(silent.port, "/hooks"), {}, "{}", 300).then(
    () => undefined,
    (error: Error) => error,
  );
  expect(failure?.message).toBe("no answer within 0.3 s");
  expect(performance.now() - started).toBeGreaterThanOrEqual(290);
});
