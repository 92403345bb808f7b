// Webhook secrets and targets (docs/events-and-webhooks.md): a second rotation inside the first
// one's overlap keeps the first secret signing until its own announced expiry (a receiver holding
// only it verifies every delivery until then, and none after); a URL's port is 1 to 65535; a test
// delivery's error says what failed (refused, timed out, TLS, the status) without the address it
// resolved to or the port it connected on.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { verifyWebhook } from "../sdk/mod.ts";
import { newCompany } from "@erp/testing/company";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(120_000);

const suite = useServer({
  env: { WEBHOOK_ALLOW_PRIVATE: "1", ERP_WEBHOOK_POLL_MS: "100", ERP_WEBHOOK_BACKOFF_MS: "300" },
});

interface Delivery {
  body: string;
  signature: string;
  /** The signature's `t`, in epoch milliseconds. */
  signedAt: number;
}

const deliveries: Delivery[] = [];
let answerWith = 200;
const receiver = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    const path = new URL(request.url).pathname;
    // A receiver that never answers: the attempt times out.
    if (path === "/silent") return new Promise<Response>(() => {});
    const signature = request.headers.get("erp-signature") ?? "";
    if (path === "/hooks")
      deliveries.push({
        body: await request.text(),
        signature,
        signedAt: Number(/^t=(\d+)/.exec(signature)?.[1]) * 1000,
      });
    return new Response("", { status: answerWith });
  },
});

afterAll(() => receiver.stop(true));

/** A port nothing listens on: one just let go of. */
function closedPort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

describe("a second rotation inside an overlap", () => {
  test("a receiver holding only the first secret verifies every delivery until its announced expiry, and none after", async () => {
    const api = suite.api.as((await newCompany()).token);
    const made = await api.post("/v1/webhook-endpoints", {
      url: `http://127.0.0.1:${receiver.port}/hooks`,
      events: ["client.*"],
    });
    const first = made.body.data.secret as string;
    const id = made.body.data.id as number;
    let writing = true;
    const writes = (async () => {
      for (let index = 0; writing; index++) {
        await api.post("/v1/clients", { name: `Client ${index}` });
        await Bun.sleep(150);
      }
    })();
    await Bun.sleep(600);
    const once = await api.post(`/v1/webhook-endpoints/${id}/rotate-secret`, { expires_in: 4 });
    const second = once.body.data.secret as string;
    const firstExpires = Date.parse(once.body.data.previous_secret_expires_at);
    await Bun.sleep(1_000);
    const twice = await api.post(`/v1/webhook-endpoints/${id}/rotate-secret`, {
      expires_in: 3600,
    });
    expect(twice.status).toBe(200);
    const third = twice.body.data.secret as string;
    const rotatedAgain = Date.now();
    // On until well past the first secret's expiry.
    while (Date.now() < firstExpires + 2_500) await Bun.sleep(100);
    writing = false;
    await writes;
    const lastWrite = Date.now();
    while (deliveries.length === 0 || deliveries.at(-1)!.signedAt < lastWrite - 1_500)
      await Bun.sleep(100);

    const verifies = (delivery: Delivery, secret: string) =>
      verifyWebhook(delivery.body, delivery.signature, secret, { toleranceSeconds: 3600 });
    // Signed a whole second before the first secret's expiry, or after it (t has whole seconds).
    const before = deliveries.filter((one) => one.signedAt + 1_000 <= firstExpires);
    const after = deliveries.filter((one) => one.signedAt > firstExpires);
    const between = before.filter((one) => one.signedAt >= rotatedAgain);
    expect(before.length).toBeGreaterThan(10);
    expect(between.length).toBeGreaterThan(3);
    expect(after.length).toBeGreaterThan(3);
    for (const delivery of before) expect(await verifies(delivery, first)).toBe(true);
    for (const delivery of between) {
      // One v1 per live secret: the third, the second and the first.
      expect(delivery.signature.match(/v1=/g)?.length).toBe(3);
      expect(await verifies(delivery, second)).toBe(true);
      expect(await verifies(delivery, third)).toBe(true);
    }
    for (const delivery of after) {
      expect(await verifies(delivery, first)).toBe(false);
      expect(delivery.signature.match(/v1=/g)?.length).toBe(2);
      expect(await verifies(delivery, second)).toBe(true);
      expect(await verifies(delivery, third)).toBe(true);
    }
  });
});

describe("webhook targets", () => {
  test("a URL's port is 1 to 65535: port 0 and ports above are refused on url", async () => {
    const api = suite.api.as((await newCompany()).token);
    for (const port of ["0", "00", "65536", "99999"]) {
      const refused = await api.post("/v1/webhook-endpoints", {
        url: `http://127.0.0.1:${port}/hooks`,
        events: ["*"],
      });
      expect([port, refused.status, refused.body.errors?.[0]?.field]).toEqual([port, 422, "url"]);
      expect(refused.body.errors[0].message).toContain("port from 1 to 65535");
    }
    for (const port of ["1", "65535"])
      expect(
        (
          await api.post("/v1/webhook-endpoints", {
            url: `http://127.0.0.1:${port}/hooks`,
            events: ["*"],
          })
        ).status,
      ).toBe(201);
  });

  test("a test delivery says what failed: refused, TLS, the status, timed out; never the address or port", async () => {
    const api = suite.api.as((await newCompany()).token);
    const closed = closedPort();
    const cases = [
      { url: `http://127.0.0.1:${closed}/x`, port: closed, says: "connection refused" },
      { url: `https://127.0.0.1:${receiver.port}/x`, port: receiver.port, says: "TLS failed" },
      { url: `http://127.0.0.1:${receiver.port}/x`, port: receiver.port, says: "answered 503" },
      { url: `http://127.0.0.1:${receiver.port}/silent`, port: receiver.port, says: "timed out" },
    ];
    answerWith = 503;
    try {
      for (const { url, port, says } of cases) {
        const made = await api.post("/v1/webhook-endpoints", { url, events: ["*"] });
        expect([url, made.status]).toEqual([url, 201]);
        const tested = await api.post(`/v1/webhook-endpoints/${made.body.data.id}/test`);
        const { status, error } = tested.body.data as { status: string; error: string };
        expect([url, status]).toEqual([url, "failed"]);
        expect([url, error.startsWith(says)]).toEqual([url, true]);
        expect([url, error.includes("127.0.0.1"), error.includes(String(port))]).toEqual([
          url,
          false,
          false,
        ]);
        const log = await api.get(`/v1/webhook-endpoints/${made.body.data.id}/deliveries`);
        expect(log.body.data[0].attempt_log[0].error).toBe(error);
      }
    } finally {
      answerWith = 200;
    }
  });
});
