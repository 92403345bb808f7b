// Webhook dispatch throughput to a healthy receiver: a company's endpoint is enabled after `events`
// events were written, and the clock runs from enabling it until the receiver on this machine has
// acknowledged every event (fan-out into deliveries, leasing, signing, sending, recording each
// attempt). One server process with its production dispatcher settings, on a database of its own:
// every server delivers every company's webhooks, and the benchmark's other server refuses http.
import { connectDatabase, createCompany } from "@erp/server/admin";
import { spawnServer } from "./spawn-server.ts";
import { onOwnDatabase } from "./throw-away-database.ts";

export interface DispatchThroughput {
  events: number;
  seconds: number;
  deliveriesPerSecond: number;
}

/** Gives up (throws) when the receiver has not had every event after this long. */
const DEADLINE_MS = 300_000;

export function webhookDispatch(
  databaseServerUrl: string,
  events: number,
): Promise<DispatchThroughput> {
  return onOwnDatabase(databaseServerUrl, "erp_bench_webhooks", (databaseUrl) =>
    dispatchOn(databaseUrl, events),
  );
}

async function dispatchOn(databaseUrl: string, events: number): Promise<DispatchThroughput> {
  const db = connectDatabase(databaseUrl, { connectionLimit: 2 });
  const received = new Set<string>();
  const allReceived = Promise.withResolvers<void>();
  const receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      received.add(request.headers.get("erp-event-id") ?? "");
      if (received.size === events) allReceived.resolve();
      return new Response(null, { status: 204 });
    },
  });
  const server = await spawnServer("server/src/main.ts", databaseUrl, {
    env: { WEBHOOK_ALLOW_PRIVATE: "1" },
  });
  try {
    const company = await createCompany(db.db, {
      name: "Webhook Co",
      plan: "enterprise",
      addons: ["api"],
    });
    const call = async (method: string, url: string, body: unknown) => {
      const response = await fetch(`${server.baseUrl}${url}`, {
        method,
        headers: { authorization: `Bearer ${company.token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (!response.ok)
        throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
      return (await response.json()) as { data: { id: number } };
    };
    const endpoint = await call("POST", "/v1/webhook-endpoints", {
      url: `http://127.0.0.1:${receiver.port}/hooks`,
      events: ["*"],
      enabled: false,
    });
    for (let offset = 0; offset < events; offset += 500) {
      const items = Array.from({ length: Math.min(500, events - offset) }, (_, i) => ({
        name: `Hooked ${offset + i}`,
      }));
      await call("POST", "/v1/clients/batch", { items, atomic: true });
    }
    const started = performance.now();
    await call("PATCH", `/v1/webhook-endpoints/${endpoint.data.id}`, { enabled: true });
    const deadline = setTimeout(
      () =>
        allReceived.reject(
          new Error(
            `webhook dispatch: ${received.size} of ${events} events received after ${DEADLINE_MS / 1000} s`,
          ),
        ),
      DEADLINE_MS,
    );
    await allReceived.promise.finally(() => clearTimeout(deadline));
    const seconds = (performance.now() - started) / 1000;
    return {
      events,
      seconds: Math.round(seconds * 10) / 10,
      deliveriesPerSecond: Math.round(events / seconds),
    };
  } finally {
    server.process.kill("SIGTERM");
    await server.process.exited;
    receiver.stop(true);
    await db.close();
  }
}
