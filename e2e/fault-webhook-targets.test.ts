// Fault suite: webhook targets. Without WEBHOOK_ALLOW_PRIVATE no spelling of a private address is
// accepted (IPv4-mapped, -compatible, NAT64, 6to4, Teredo, special-purpose ranges, numeric IPv4
// forms), and the check is made again when a delivery connects: a stored URL in such a spelling, or
// a name that resolves to loopback only at delivery time (DNS rebinding, played by a hosts file
// the test rewrites), is refused and never connected. A listener on loopback counts connections.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { Api } from "@erp/testing/api";
import { tempDir } from "@erp/testing/cli";
import { closeTestDb, newCompany, testDb } from "@erp/testing/company";
import { startServer, type RunningServer } from "@erp/testing/server";

setDefaultTimeout(120_000);

const hostsFile = path.join(tempDir(), "hosts");
const resolveAs = (lines: string[]): void => writeFileSync(hostsFile, `${lines.join("\n")}\n`);
resolveAs([]);

let connections = 0;
const listener = Bun.listen({
  hostname: "127.0.0.1",
  port: 0,
  socket: {
    open(socket) {
      connections += 1;
      socket.end();
    },
    data() {},
  },
});
const port = listener.port;

const DISPATCH = {
  ERP_WEBHOOK_POLL_MS: "100",
  ERP_WEBHOOK_BACKOFF_MS: "300",
  ERP_WEBHOOK_LEASE_MS: "3000",
  ERP_WEBHOOK_HOSTS_FILE: hostsFile,
};
let server: RunningServer | undefined;

afterAll(async () => {
  await server?.stop();
  listener.stop(true);
  await closeTestDb();
});

/** Runs `check` until it returns true, or fails after `withinMs`. */
async function until(
  what: string,
  check: () => Promise<boolean>,
  withinMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    await Bun.sleep(100);
  }
}

/** The errors of the endpoint's delivery attempts so far. */
async function attemptErrors(api: Api, endpoint: number): Promise<string[]> {
  const deliveries = (await api.get(`/v1/webhook-endpoints/${endpoint}/deliveries?limit=100`)).body
    .data as { attempt_log: { error: string | null }[] }[];
  return deliveries.flatMap((delivery) =>
    delivery.attempt_log.map((attempt) => attempt.error ?? "answered"),
  );
}

/** Deleting an endpoint cancels its pending deliveries, so no later server retries them. */
async function deleteEndpoints(api: Api): Promise<void> {
  for (const endpoint of (await api.get("/v1/webhook-endpoints")).body.data as { id: number }[])
    await api.delete(`/v1/webhook-endpoints/${endpoint.id}`);
}

describe("webhook targets", () => {
  test(
    "control: the test's resolver decides where a delivery connects (a server allowing " +
      "private targets reaches the listener)",
    async () => {
      server = await startServer({ env: { ...DISPATCH, WEBHOOK_ALLOW_PRIVATE: "1" } });
      const api = new Api(server.baseUrl, (await newCompany()).token);
      resolveAs(["127.0.0.1 rebind.test"]);
      expect(
        (
          await api.post("/v1/webhook-endpoints", {
            url: `https://rebind.test:${port}/hooks`,
            events: ["*"],
          })
        ).status,
      ).toBe(201);
      await api.post("/v1/clients", { name: "Reaches the listener" });
      await until("the permissive server connects to the listener", async () => connections > 0);
      await deleteEndpoints(api);
      await server.stop();
      server = undefined;
      connections = 0;
    },
  );

  describe("without WEBHOOK_ALLOW_PRIVATE", () => {
    let api: Api;
    let companyId: number;
    beforeAll(async () => {
      server = await startServer({ env: DISPATCH });
      const company = await newCompany();
      companyId = company.companyId;
      api = new Api(server.baseUrl, company.token);
    });

    const SPELLINGS = (): string[] => [
      `https://[::ffff:127.0.0.1]:${port}/x`,
      `https://[::ffff:7f00:1]:${port}/x`,
      `https://[::127.0.0.1]:${port}/x`,
      `https://[::1]:${port}/x`,
      `https://[64:ff9b::7f00:1]:${port}/x`,
      `https://[2002:7f00:1::]:${port}/x`,
      `https://[2001:0:4136:e378:8000:63bf:80ff:fffe]:${port}/x`,
      "https://[::ffff:a9fe:a9fe]/latest",
      "https://[::ffff:10.0.0.1]/x",
      "https://[fe80::1]/x",
      "https://[fd00::1]/x",
      "https://192.0.0.1/x",
      "https://100.64.0.1/x",
      "https://169.254.169.254/latest",
      "https://198.18.0.1/x",
      "https://0.0.0.0/x",
      `https://0x7f.1:${port}/x`,
      `https://2130706433:${port}/x`,
      `https://127.1:${port}/x`,
      `https://localhost:${port}/x`,
    ];

    test(
      "every spelling of a private address is refused at registration, also a name with one " +
        "private answer among public ones",
      async () => {
        resolveAs(["93.184.215.14 mixed.test", `127.0.0.1 mixed.test`]);
        for (const url of [...SPELLINGS(), `https://mixed.test:${port}/x`]) {
          const refused = await api.post("/v1/webhook-endpoints", { url, events: ["*"] });
          expect([url, refused.status, refused.body.errors?.[0]?.code]).toEqual([
            url,
            422,
            "invalid_url",
          ]);
        }
        expect(
          (
            await api.post("/v1/webhook-endpoints?dry_run=1", {
              url: "https://[::ffff:93.184.215.14]/hooks",
              events: ["*"],
            })
          ).status,
        ).toBe(200);
      },
    );

    test(
      "a name that resolves to loopback only at delivery time is refused when the delivery " +
        "connects: 0 connections",
      async () => {
        resolveAs([
          "93.184.215.14 rebind.test",
          "2606:2800:21f:cb07:6820:80da:af6b:8b2c rebind.test",
        ]);
        const made = await api.post("/v1/webhook-endpoints", {
          url: `https://rebind.test:${port}/hooks`,
          events: ["*"],
        });
        expect(made.status).toBe(201);
        resolveAs(["127.0.0.1 rebind.test"]);
        await api.post("/v1/clients", { name: "Rebound" });
        await until(
          "a refused attempt",
          async () => (await attemptErrors(api, made.body.data.id)).length >= 2,
        );
        const errors = await attemptErrors(api, made.body.data.id);
        expect(
          errors.every((error) =>
            error.startsWith("target refused: url names a private, loopback, link-local"),
          ),
        ).toBe(true);
        expect(connections).toBe(0);
        await deleteEndpoints(api);
      },
    );

    test(
      "URLs stored in every spelling (as if saved before the rule) are refused when each " +
        "delivery connects: 0 connections",
      async () => {
        resolveAs(["127.0.0.1 rebind.test"]);
        const urls = [...SPELLINGS(), `https://rebind.test:${port}/x`];
        const now = new Date();
        const ids: number[] = [];
        for (const url of urls) {
          const [result] = await testDb().pool.query(
            "INSERT INTO webhook_endpoints (company_id, url, events, enabled, secret, `cursor`, " +
              "created_at, updated_at) VALUES (?, ?, '[\"*\"]', TRUE, 'whsec_test', NULL, ?, ?)",
            [companyId, url, now, now],
          );
          ids.push(Number((result as { insertId: number }).insertId));
        }
        await api.post("/v1/clients", { name: "Event for every stored URL" });
        for (const [index, id] of ids.entries()) {
          await until(
            `an attempt for ${urls[index]}`,
            async () => (await attemptErrors(api, id)).length > 0,
          );
          const errors = await attemptErrors(api, id);
          expect([
            urls[index],
            errors.every((error) => error.startsWith("target refused:")),
          ]).toEqual([urls[index], true]);
        }
        expect(connections).toBe(0);
        console.log(
          `[fault: webhook targets] ${urls.length} stored URLs in private spellings: every ` +
            `attempt refused before connecting, ${connections} connections`,
        );
        await deleteEndpoints(api);
      },
    );
  });
});
