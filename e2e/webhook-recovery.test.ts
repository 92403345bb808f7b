// Recovering webhooks (docs/events-and-webhooks.md): a test ping while a receiver is built, a
// replay after an outage longer than the retry window, and a secret rotation during which every
// delivery verifies with the old secret and with the new one.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { ErpClient, verifyWebhook } from "../sdk/mod.ts";
import { Api } from "@erp/testing/api";
import { closeTestDb, newCompany } from "@erp/testing/company";
import { type RunningServer, startServer } from "@erp/testing/server";

setDefaultTimeout(60_000);

let server: RunningServer;

interface Received {
  body: string;
  eventId: string;
  signature: string;
  at: number;
}

/** A receiver on a port of its own that can be stopped (an outage) and started again on it. */
function receiver() {
  const received: Received[] = [];
  let running: ReturnType<typeof Bun.serve> | undefined;
  const start = (port = 0) => {
    running = Bun.serve({
      port,
      hostname: "127.0.0.1",
      async fetch(request) {
        received.push({
          body: await request.text(),
          eventId: request.headers.get("erp-event-id") ?? "",
          signature: request.headers.get("erp-signature") ?? "",
          at: Date.now(),
        });
        return new Response("ok");
      },
    });
    return running.port as number;
  };
  const port = start();
  return {
    received,
    url: `http://127.0.0.1:${port}/hooks`,
    stop: () => running?.stop(true),
    restart: () => start(port),
  };
}

async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  withinMs = 20_000,
) {
  const deadline = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    await Bun.sleep(100);
  }
}

beforeAll(async () => {
  server = await startServer({
    env: {
      WEBHOOK_ALLOW_PRIVATE: "1",
      ERP_WEBHOOK_POLL_MS: "100",
      ERP_WEBHOOK_BACKOFF_MS: "10",
      ERP_WEBHOOK_LEASE_MS: "2000",
      // Eight attempts (10 ms doubling) fit in about 3 s; then the delivery is failed.
      ERP_WEBHOOK_RETRY_WINDOW_MS: "1000",
    },
  });
});

afterAll(async () => {
  await server.stop();
  await closeTestDb();
});

describe("webhook recovery", () => {
  test(
    "test sends a signed ping within 5 s, answered with the attempt; it is in the deliveries " +
      "log, not in the feed",
    async () => {
      const hooks = receiver();
      try {
        const { token } = await newCompany();
        const api = new Api(server.baseUrl, token);
        const made = (await api.post("/v1/webhook-endpoints", { url: hooks.url, events: ["*"] }))
          .body.data;
        const feedBefore = (await api.get("/v1/events")).body.data.length;
        const dry = await api.post(`/v1/webhook-endpoints/${made.id}/test`, undefined, {
          headers: { "x-dry-run": "1" },
        });
        expect(dry.body.data).toEqual({ dry_run: true });
        expect(hooks.received.length).toBe(0);

        const started = Date.now();
        const tested = await api.post(`/v1/webhook-endpoints/${made.id}/test`);
        expect(tested.status).toBe(200);
        expect(Date.now() - started).toBeLessThan(5_000);
        expect(tested.body.data).toMatchObject({
          status: "delivered",
          status_code: 200,
          error: null,
        });
        const bySdk = await new ErpClient({ baseUrl: server.baseUrl, token }).webhookEndpoints.test(
          made.id,
        );
        expect(bySdk).toMatchObject({
          status: "delivered",
          event_id: expect.stringMatching(/^ping_/),
        });
        expect(hooks.received.length).toBe(2);
        const ping = hooks.received[0]!;
        expect(JSON.parse(ping.body)).toMatchObject({
          type: "ping",
          data: { endpoint_id: made.id },
        });
        expect(ping.eventId).toBe(tested.body.data.event_id);
        expect(await verifyWebhook(ping.body, ping.signature, made.secret)).toBe(true);

        const log = (await api.get(`/v1/webhook-endpoints/${made.id}/deliveries`)).body.data;
        expect(log.map((delivery: { id: number }) => delivery.id)).toEqual([
          expect.any(Number),
          tested.body.data.delivery_id,
        ]);
        expect(log[1]).toMatchObject({
          id: tested.body.data.delivery_id,
          event_type: "ping",
          status: "delivered",
          attempts: 1,
        });
        expect(log[1].attempt_log[0].status_code).toBe(200);
        expect((await api.get("/v1/events")).body.data.length).toBe(feedBefore);

        hooks.stop();
        const down = await api.post(`/v1/webhook-endpoints/${made.id}/test`);
        expect(down.body.data).toMatchObject({ status: "failed", status_code: null });
        expect(down.body.data.error).toBeString();
        expect((await api.post("/v1/webhook-endpoints/999999999/test")).status).toBe(404);
      } finally {
        hooks.stop();
      }
    },
  );

  test(
    "a receiver down for the whole retry window gets every event of the window exactly once " +
      "more from a replay",
    async () => {
      const hooks = receiver();
      const api = new Api(server.baseUrl, (await newCompany()).token);
      try {
        const made = (
          await api.post("/v1/webhook-endpoints", { url: hooks.url, events: ["client.*"] })
        ).body.data;
        const since = new Date().toISOString();
        hooks.stop();
        const ids: number[] = [];
        for (let i = 0; i < 12; i++)
          ids.push((await api.post("/v1/clients", { name: `Outage client ${i}` })).body.data.id);
        // Workers are not subscribed to: they are not replayed.
        await api.post("/v1/workers", { name: "Not subscribed" });
        const deliveries = async () =>
          (await api.get(`/v1/webhook-endpoints/${made.id}/deliveries?limit=100`)).body.data as {
            status: string;
          }[];
        await eventually(
          "every delivery failed after its retry window",
          async () => {
            const log = await deliveries();
            return log.length === ids.length && log.every((d) => d.status === "failed");
          },
          30_000,
        );

        hooks.restart();
        const dry = await api.post(
          `/v1/webhook-endpoints/${made.id}/replay`,
          { since },
          { headers: { "x-dry-run": "1" } },
        );
        expect(dry.body.data).toEqual({ queued: ids.length, dry_run: true });
        await Bun.sleep(500);
        expect(hooks.received.length).toBe(0);

        const replayed = await api.post(`/v1/webhook-endpoints/${made.id}/replay`, { since });
        expect(replayed.status).toBe(200);
        expect(replayed.body.data).toEqual({ queued: ids.length, dry_run: false });
        await eventually(
          "every replayed event delivered",
          () => hooks.received.length >= ids.length,
        );
        await Bun.sleep(1_000);
        const records = hooks.received.map((r) => JSON.parse(r.body).record_id as number);
        expect(records.sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
        expect(new Set(hooks.received.map((r) => r.eventId)).size).toBe(ids.length);
        expect((await deliveries()).every((d) => d.status === "delivered")).toBe(true);

        // From a cursor: the events after the sixth client's.
        const feed = (await api.get("/v1/events?type=client.created&limit=100")).body.data as {
          id: string;
          record_id: number;
        }[];
        const sixth = feed.find((event) => event.record_id === ids[5])!;
        const again = await api.post(
          `/v1/webhook-endpoints/${made.id}/replay`,
          { after: sixth.id },
          { headers: { "x-dry-run": "1" } },
        );
        expect(again.body.data.queued).toBe(6);
        const bad = await api.post(`/v1/webhook-endpoints/${made.id}/replay`, { after: "nope" });
        expect(bad.status).toBe(422);
        const both = await api.post(`/v1/webhook-endpoints/${made.id}/replay`, {
          after: sixth.id,
          since,
        });
        expect(both.status).toBe(422);
      } finally {
        hooks.stop();
      }
    },
  );

  test(
    "during a rotation with expires_in: 60 every delivery verifies with either secret; a " +
      "later rotation's secret stops at the end of its own window, the first at the end of its",
    async () => {
      const hooks = receiver();
      const { token } = await newCompany();
      const api = new Api(server.baseUrl, token);
      const erp = new ErpClient({ baseUrl: server.baseUrl, token });
      try {
        const made = (
          await api.post("/v1/webhook-endpoints", { url: hooks.url, events: ["client.*"] })
        ).body.data;
        const rotated = await erp.webhookEndpoints.rotateSecret(made.id, { expiresIn: 60 });
        if (!("secret" in rotated)) throw new Error("a real rotation answers the new secret");
        const fresh = rotated.secret;
        expect(Date.parse(rotated.previous_secret_expires_at!) - Date.now()).toBeGreaterThan(
          55_000,
        );
        for (let i = 0; i < 5; i++) await api.post("/v1/clients", { name: `During ${i}` });
        await eventually("five deliveries", () => hooks.received.length >= 5);
        for (const delivery of hooks.received) {
          expect(delivery.signature.match(/v1=/g)?.length).toBe(2);
          expect(await verifyWebhook(delivery.body, delivery.signature, made.secret)).toBe(true);
          expect(await verifyWebhook(delivery.body, delivery.signature, fresh)).toBe(true);
          expect(await verifyWebhook(delivery.body, delivery.signature, [fresh, made.secret])).toBe(
            true,
          );
        }

        // A second rotation whose own overlap has run out: the secret it replaced stops, while
        // the first one still signs until the end of the window it was announced.
        const last = await api.post(`/v1/webhook-endpoints/${made.id}/rotate-secret`, {
          expires_in: 1,
        });
        const newest = last.body.data.secret as string;
        await Bun.sleep(1_200);
        const before = hooks.received.length;
        await api.post("/v1/clients", { name: "After the window" });
        await eventually("the delivery after the window", () => hooks.received.length > before);
        const after = hooks.received.at(-1)!;
        expect(after.signature.match(/v1=/g)?.length).toBe(2);
        expect(await verifyWebhook(after.body, after.signature, newest)).toBe(true);
        expect(await verifyWebhook(after.body, after.signature, fresh)).toBe(false);
        expect(await verifyWebhook(after.body, after.signature, made.secret)).toBe(true);

        const tooLong = await api.post(`/v1/webhook-endpoints/${made.id}/rotate-secret`, {
          expires_in: 8 * 24 * 3600,
        });
        expect(tooLong.status).toBe(422);
        expect(tooLong.body.errors[0].field).toBe("expires_in");
      } finally {
        hooks.stop();
      }
    },
  );
});
