// Webhooks (docs/events-and-webhooks.md): every event reaches a local receiver, signed, through its failures and
// through the SIGKILL of a server that was delivering; the SSRF guard; secret rotation; the log.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { ErpClient, verifyWebhook } from "../sdk/mod.ts";
import { Api } from "@erp/testing/api";
import { closeTestDb, newCompany } from "@erp/testing/company";
import { startServer, type RunningServer } from "@erp/testing/server";

setDefaultTimeout(90_000);

const FAST = {
  WEBHOOK_ALLOW_PRIVATE: "1",
  ERP_WEBHOOK_POLL_MS: "100",
  ERP_WEBHOOK_BACKOFF_MS: "300",
  ERP_WEBHOOK_LEASE_MS: "2000",
};
const servers: RunningServer[] = [];

/** Runs `check` until it stops throwing, or throws its last error after `withinMs`. */
async function eventually(check: () => void, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      return check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await Bun.sleep(100);
    }
  }
}

interface Received {
  body: string;
  eventId: string | null;
  signature: string | null;
  answered: number;
}
const received: Received[] = [];
let failing = true;
const receiver = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    const body = await request.text();
    const answered = failing ? 500 : 200;
    received.push({
      body,
      eventId: request.headers.get("erp-event-id"),
      signature: request.headers.get("erp-signature"),
      answered,
    });
    return new Response(answered === 200 ? "ok" : "down for a while", { status: answered });
  },
});

beforeAll(async () => {
  servers.push(await startServer({ env: FAST }), await startServer({ env: FAST }));
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop("SIGKILL")));
  receiver.stop(true);
  await closeTestDb();
});

describe("webhooks", () => {
  test("every event reaches the receiver, signed, through 500s and the SIGKILL of a delivering server", async () => {
    const { token } = await newCompany();
    const [first, second] = servers.map((server) => new Api(server.baseUrl, token));
    const created = await first!.post("/v1/webhook-endpoints", {
      url: `http://127.0.0.1:${receiver.port}/hooks`,
      events: ["client.*", "project.created"],
      description: "test receiver",
    });
    expect(created.status).toBe(201);
    const { id: endpoint, secret } = created.body.data;
    expect(secret).toMatch(/^whsec_/);
    expect(
      (await first!.get(`/v1/webhook-endpoints/${endpoint}`)).body.data.secret,
    ).toBeUndefined();

    // Writes through both servers; the worker events are not subscribed to.
    const ids: number[] = [];
    for (let i = 0; i < 12; i++)
      ids.push(
        (await (i % 2 ? second! : first!).post("/v1/clients", { name: `Hooked ${i}` })).body.data
          .id,
      );
    for (const id of ids.slice(0, 6))
      await second!.patch(`/v1/clients/${id}`, { billing_address: "1 Hook St" });
    for (const id of ids.slice(0, 3)) await first!.delete(`/v1/clients/${id}`);
    await first!.post("/v1/projects", { name: "Hooked project" });
    await first!.post("/v1/workers", { name: "Not subscribed" });

    // The receiver fails for a while; meanwhile one delivering server is killed.
    await Bun.sleep(1_200);
    await servers[0]!.stop("SIGKILL");
    failing = false;

    const feed = (await second!.get("/v1/events?limit=100")).body.data as {
      id: string;
      type: string;
    }[];
    const expected = feed
      .filter((event) => event.type.startsWith("client.") || event.type === "project.created")
      .map((event) => event.id);
    expect(expected).toHaveLength(12 + 6 + 3 + 1);
    await eventually(() => {
      const delivered = new Set(received.filter((r) => r.answered === 200).map((r) => r.eventId));
      expect(expected.filter((id) => !delivered.has(id))).toEqual([]);
    }, 40_000);

    let verified = 0;
    for (const request of received) {
      expect(await verifyWebhook(request.body, request.signature, secret)).toBe(true);
      expect(JSON.parse(request.body).id).toBe(request.eventId);
      verified += 1;
    }
    expect(
      await verifyWebhook(
        received[0]!.body.replace("Hooked", "Hacked"),
        received[0]!.signature,
        secret,
      ),
    ).toBe(false);
    expect(await verifyWebhook(received[0]!.body, received[0]!.signature, "whsec_wrong")).toBe(
      false,
    );
    expect(received.some((r) => JSON.parse(r.body).type === "worker.created")).toBe(false);
    const retried = received.filter((r) => r.answered === 500).length;
    console.log(
      `[webhooks] ${expected.length} events, ${received.length} POSTs (${retried} answered 500 ` +
        `before the receiver recovered, a delivering server SIGKILLed), ${verified} ` +
        `signatures verified, 0 lost`,
    );

    const log = await second!.get(`/v1/webhook-endpoints/${endpoint}/deliveries?limit=100`);
    expect(log.body.meta.total).toBe(expected.length);
    expect(log.body.data.every((d: { status: string }) => d.status === "delivered")).toBe(true);
    const early = log.body.data.find((d: { attempt_log: { status_code: number }[] }) =>
      d.attempt_log.some((a) => a.status_code === 500),
    );
    expect(early.attempt_log.at(-1).status_code).toBe(200);
    expect(early.attempt_log[0].duration_ms).toBeGreaterThanOrEqual(0);
  });

  test("a rotated secret signs the next deliveries; a disabled or deleted endpoint gets nothing", async () => {
    const { token } = await newCompany();
    const api = new Api(servers[1]!.baseUrl, token);
    const made = (
      await api.post("/v1/webhook-endpoints", {
        url: `http://127.0.0.1:${receiver.port}/rotated`,
        events: ["*"],
      })
    ).body.data;
    const rotated = await api.post(`/v1/webhook-endpoints/${made.id}/rotate-secret`);
    expect(rotated.body.data.secret).not.toBe(made.secret);
    const client = (await api.post("/v1/clients", { name: "After rotation" })).body.data.id;
    await eventually(
      () =>
        expect(
          received.some((r) => JSON.parse(r.body).record_id === client && r.answered === 200),
        ).toBe(true),
      20_000,
    );
    const delivery = received.find((r) => JSON.parse(r.body).record_id === client)!;
    expect(await verifyWebhook(delivery.body, delivery.signature, rotated.body.data.secret)).toBe(
      true,
    );
    expect(await verifyWebhook(delivery.body, delivery.signature, made.secret)).toBe(false);

    expect(
      (await api.patch(`/v1/webhook-endpoints/${made.id}`, { enabled: false })).body.data.enabled,
    ).toBe(false);
    const quiet = (await api.post("/v1/clients", { name: "While disabled" })).body.data.id;
    expect((await api.delete(`/v1/webhook-endpoints/${made.id}`)).body.data).toEqual({
      id: made.id,
      deleted: true,
    });
    await Bun.sleep(1_000);
    expect(received.some((r) => JSON.parse(r.body).record_id === quiet)).toBe(false);
    expect((await api.get(`/v1/webhook-endpoints/${made.id}`)).status).toBe(404);
  });

  test(
    "targets: https to public addresses only, unless the server allows private ones; every " +
      "field is checked at once",
    async () => {
      const strict = await startServer();
      servers.push(strict);
      const { token } = await newCompany();
      const api = new Api(strict.baseUrl, token);
      for (const url of [
        `http://127.0.0.1:${receiver.port}/hooks`,
        "https://10.0.0.1/hooks",
        "https://127.0.0.1/hooks",
        "https://[::1]/hooks",
        "https://169.254.169.254/latest",
        "ftp://example.com/x",
      ]) {
        const refused = await api.post("/v1/webhook-endpoints", { url, events: ["project.*"] });
        expect(refused.status).toBe(422);
        expect(refused.body.errors[0]).toMatchObject({ field: "url", code: "invalid_url" });
      }
      const bad = await api.post("/v1/webhook-endpoints", {
        url: 5,
        events: ["spaceship.created", "project.*"],
        colour: "red",
      });
      expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
        "colour",
        "events",
        "url",
      ]);
      const dry = await api.post("/v1/webhook-endpoints?dry_run=1", {
        url: "https://93.184.215.14/hooks",
        events: ["project.*"],
      });
      expect(dry.status).toBe(200);
      expect((await api.get("/v1/webhook-endpoints")).body.data).toEqual([]);
    },
  );

  test(
    "the SDK follows the feed: events.list() pages by cursor and follow() long-polls for " +
      "events as they commit",
    async () => {
      const { token } = await newCompany();
      const erp = new ErpClient({ baseUrl: servers[1]!.baseUrl, token });
      for (let i = 0; i < 3; i++) await erp.clients.create({ name: `Feed ${i}` });
      const listed = [];
      for await (const event of erp.events.list({ limit: 2 })) listed.push(event.type);
      expect(listed).toEqual(["client.created", "client.created", "client.created"]);
      const controller = new AbortController();
      const followed: string[] = [];
      const following = (async () => {
        for await (const event of erp.events.follow({
          from: "beginning",
          signal: controller.signal,
        })) {
          followed.push(event.data.record.name as string);
          if (followed.length === 4) controller.abort();
        }
      })();
      await Bun.sleep(200);
      await erp.clients.create({ name: "Live" });
      // Aborting ends the iteration without an error.
      await following;
      expect(followed).toEqual(["Feed 0", "Feed 1", "Feed 2", "Live"]);
    },
  );

  test(
    "follow() starts at the newest event by default, long-polls with wait, and stops cleanly " +
      "when aborted mid-wait",
    async () => {
      const { token } = await newCompany();
      const sent: URL[] = [];
      const controller = new AbortController();
      const erp = new ErpClient({
        baseUrl: servers[1]!.baseUrl,
        token,
        fetch: (url, init) => {
          if (new URL(url).pathname === "/v1/events") sent.push(new URL(url));
          // The second long-poll is cut short: the first one came back empty after its second.
          if (sent.length === 2) setTimeout(() => controller.abort(), 100);
          return fetch(url, init);
        },
      });
      for (let i = 0; i < 3; i++) await erp.clients.create({ name: `Before ${i}` });
      const followed: unknown[] = [];
      for await (const event of erp.events.follow({ waitSeconds: 1, signal: controller.signal }))
        followed.push(event);
      expect(followed).toEqual([]);
      expect(
        sent.map((url) => [
          url.searchParams.get("after")?.slice(0, 4),
          url.searchParams.get("wait"),
        ]),
      ).toEqual([
        ["late", "1"],
        ["evt_", "1"],
      ]);
    },
  );
});
