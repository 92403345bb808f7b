// A create whose response is lost after the server wrote it: the retry replays it, and one record exists.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { newCompany } from "@erp/testing/company";
import { useServer } from "@erp/testing/suite";
import { ErpClient } from "../../mod.ts";

const suite = useServer();
let proxy: ReturnType<typeof Bun.serve>;
const forwarded: { method: string; key: string | null; status: number }[] = [];

beforeAll(() => {
  let lostOne = false;
  proxy = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const upstream = await fetch(`${suite.server.baseUrl}${url.pathname}${url.search}`, {
        method: request.method,
        headers: request.headers,
        body: request.method === "GET" ? undefined : await request.text(),
      });
      forwarded.push({
        method: request.method,
        key: request.headers.get("idempotency-key"),
        status: upstream.status,
      });
      if (request.method === "POST" && !lostOne) {
        lostOne = true;
        await upstream.arrayBuffer();
        return new Response("upstream timed out", { status: 503 });
      }
      return upstream;
    },
  });
});

afterAll(() => proxy.stop(true));

test(
  "the first response of a create is lost (503 after the write): the SDK retries with the " +
    "same key and one record exists",
  async () => {
    const { token } = await newCompany();
    const erp = new ErpClient({ baseUrl: `http://127.0.0.1:${proxy.port}`, token });
    const name = `Lost response ${crypto.randomUUID()}`;

    const { data, response } = await erp.projects.create({ name }).withResponse();

    const posts = forwarded.filter((r) => r.method === "POST");
    expect(posts.map((r) => r.status)).toEqual([201, 201]);
    expect(posts[0]!.key).toBeTruthy();
    expect(posts[1]!.key).toBe(posts[0]!.key);
    expect(response.replayed).toBe(true);
    const matching = await erp.projects.listPage({ q: name });
    expect(matching.meta.total).toBe(1);
    expect(matching.data[0]!.id).toBe(data.id);
  },
);
