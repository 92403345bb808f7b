// Fault suite: webhook dispatch is fair. One company subscribes a receiver that accepts connections
// and never answers, then imports 9,000 records: 9,000 deliveries wait on a receiver that holds
// each attempt for the full 10 s. Another company's new events must still reach its healthy
// receiver within 2 s each, with the dispatcher's production settings (1 s poll).
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { Api } from "@erp/testing/api";
import { closeTestDb, newCompany } from "@erp/testing/company";
import { startServer, type RunningServer } from "@erp/testing/server";

setDefaultTimeout(240_000);

const PENDING = 9_000;
const BATCH = 500;

let deadConnections = 0;
const dead = Bun.listen({
  hostname: "127.0.0.1",
  port: 0,
  socket: {
    open() {
      deadConnections += 1;
    },
    data() {},
  },
});

const arrivals = new Map<number, number>();
const healthy = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    const event = JSON.parse(await request.text()) as { record_id: number };
    arrivals.set(event.record_id, performance.now());
    return new Response("ok");
  },
});

let server: RunningServer | undefined;

afterAll(async () => {
  await server?.stop();
  dead.stop(true);
  healthy.stop(true);
  await closeTestDb();
});

test(
  `with ${PENDING.toLocaleString("en")} deliveries pending to another company's receiver ` +
    `that never answers, a new event reaches a healthy endpoint within 2 s`,
  async () => {
    server = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE: "1" } });
    const stuck = new Api(server.baseUrl, (await newCompany()).token);
    const stuckEndpoint = (
      await stuck.post("/v1/webhook-endpoints", {
        url: `http://127.0.0.1:${dead.port}/hooks`,
        events: ["*"],
      })
    ).body.data.id;
    for (let offset = 0; offset < PENDING; offset += BATCH) {
      const items = Array.from({ length: BATCH }, (_, i) => ({ name: `Imported ${offset + i}` }));
      expect((await stuck.post("/v1/clients/batch", { items, atomic: true })).status).toBe(200);
    }
    const pending = async (): Promise<number> =>
      (await stuck.get(`/v1/webhook-endpoints/${stuckEndpoint}/deliveries?limit=1`)).body.meta
        .total;
    const deadline = Date.now() + 120_000;
    while ((await pending()) < PENDING && Date.now() < deadline) await Bun.sleep(250);
    expect(await pending()).toBe(PENDING);

    const served = new Api(server.baseUrl, (await newCompany()).token);
    const servedEndpoint = (
      await served.post("/v1/webhook-endpoints", {
        url: `http://127.0.0.1:${healthy.port}/hooks`,
        events: ["client.created"],
      })
    ).body.data.id;
    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const id = (await served.post("/v1/clients", { name: `Served ${i}` })).body.data.id as number;
      while (!arrivals.has(id) && performance.now() - started < 5_000) await Bun.sleep(10);
      latencies.push(Math.round((arrivals.get(id) ?? Number.POSITIVE_INFINITY) - started));
    }
    const inFlightToDead = deadConnections;
    console.log(
      `[fault: webhook fairness] ${PENDING} deliveries pending to a receiver that never answers ` +
        `(${inFlightToDead} connections to it so far); ` +
        `another company's new events reached their receiver in ${latencies.join(", ")} ms`,
    );
    expect(inFlightToDead).toBeGreaterThan(0);
    expect(latencies.every((ms) => ms < 2_000)).toBe(true);

    // Nothing left pending for later servers on this database to retry.
    await stuck.delete(`/v1/webhook-endpoints/${stuckEndpoint}`);
    await served.delete(`/v1/webhook-endpoints/${servedEndpoint}`);
  },
);
