// Metering and GET /v1/usage (docs/limits.md): exact counts per company and month, replays
// apart, lagging at most 2 s, summed across processes, flushed by a graceful shutdown.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { RowDataPacket } from "mysql2";
import { Api } from "@erp/testing/api";
import { newCompany, testDb } from "@erp/testing/company";
import { startServer } from "@erp/testing/server";
import { useServer } from "@erp/testing/suite";

// Server starts, crash recovery and waits for a fresh rate window outlast bun's 5 s default
// (bunfig.toml has no test timeout setting).
setDefaultTimeout(30_000);

const suite = useServer();

interface Usage {
  period: string;
  requests: number;
  dry_run_requests: number;
  replays: number;
  /** One entry per resource a plan's quota limits (docs/limits.md). */
  quotas: Record<string, { used: number; limit: number | null }>;
}

async function usage(api: Api): Promise<Usage> {
  const response = await api.get("/v1/usage");
  expect(response.status).toBe(200);
  return response.body.data as Usage;
}

/** Waits out the contract's 2 s lag, then reads the counters. */
async function settledUsage(api: Api): Promise<Usage> {
  await Bun.sleep(2100);
  return usage(api);
}

const counters = (u: Usage) => ({
  requests: u.requests,
  dry_run_requests: u.dry_run_requests,
  replays: u.replays,
});

async function storedCounters(companyId: number): Promise<Record<string, unknown> | undefined> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT requests, dry_run_requests, replays FROM usage_counters WHERE company_id = ?",
    [companyId],
  );
  return rows[0] && { ...rows[0] };
}

describe("metering", () => {
  test(
    "counts every authenticated data request once; replays apart; usage, health and bad " +
      "tokens not at all",
    async () => {
      const { token } = await newCompany();
      const api = suite.api.as(token);
      for (let i = 0; i < 3; i += 1) expect((await api.get("/v1/projects")).status).toBe(200); // 3
      expect((await api.get("/v1/projects/999999999")).status).toBe(404); // 4
      expect(
        (await api.post("/v1/projects", { name: "Dry" }, { headers: { "x-dry-run": "1" } })).status,
      ).toBe(200); // 5, dry 1
      expect((await api.post("/v1/projects?dry_run=1", { name: "Dry" })).status).toBe(200); // 6, dry 2
      expect((await api.post("/v1/projects", {})).status).toBe(422); // 7
      const keyed = { headers: { "idempotency-key": "m-1" } };
      expect((await api.post("/v1/projects", { name: "Real" }, keyed)).status).toBe(201); // 8
      const replay = await api.post("/v1/projects", { name: "Real" }, keyed); // replay 1
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      await api.post("/v1/projects", { name: "Real" }, keyed); // replay 2
      const dryKeyed = { headers: { "idempotency-key": "m-2", "x-dry-run": "1" } };
      await api.post("/v1/workers", { name: "Dry worker" }, dryKeyed); // 9, dry 3
      // 10, dry 4: a dry-run is never stored, so never replayed
      await api.post("/v1/workers", { name: "Dry worker" }, dryKeyed);
      expect((await api.get("/v1/trades")).status).toBe(200); // 11

      expect((await api.get("/v1/projects", { token: "erp_not-a-token" })).status).toBe(401);
      expect((await api.get("/healthz", { token: null })).status).toBe(200);
      await api.get("/v1/openapi.json", { token: null });
      await usage(api);

      const settled = await settledUsage(api);
      expect(settled.period).toBe(new Date().toISOString().slice(0, 7));
      expect(counters(settled)).toEqual({ requests: 11, dry_run_requests: 4, replays: 2 });
    },
  );

  test("GET /v1/usage is rate-limited like any data request but never metered", async () => {
    const { token } = await newCompany({ plan: "free" });
    const api = suite.api.as(token);
    const first = await api.get("/v1/usage");
    const second = await api.get("/v1/usage");
    expect([first, second].map((r) => r.headers.get("ratelimit-remaining"))).toEqual([
      "119",
      "118",
    ]);
    expect(counters(await settledUsage(api))).toEqual({
      requests: 0,
      dry_run_requests: 0,
      replays: 0,
    });
  });

  test("usage shows live records against the plan's quotas (null = unlimited)", async () => {
    const free = suite.api.as((await newCompany({ plan: "free" })).token);
    const first = (await free.post("/v1/projects", { name: "A" })).body.data.id;
    await free.post("/v1/projects", { name: "B" });
    await free.delete(`/v1/projects/${first}`);
    expect((await usage(free)).quotas).toMatchObject({
      projects: { used: 1, limit: 3 },
      workers: { used: 0, limit: 5 },
    });
    const unlimited = suite.api.as((await newCompany({ plan: "enterprise" })).token);
    expect((await usage(unlimited)).quotas).toMatchObject({
      projects: { used: 0, limit: null },
      workers: { used: 0, limit: null },
    });
  });

  test("a replay consumes neither quota nor metered requests", async () => {
    const api = suite.api.as(
      (await newCompany({ plan: "enterprise", quotas: { projects: 1 } })).token,
    );
    const keyed = { headers: { "idempotency-key": "only-one" } };
    const first = await api.post("/v1/projects", { name: "The one" }, keyed);
    expect(first.status).toBe(201);
    for (let i = 0; i < 3; i += 1) {
      const again = await api.post("/v1/projects", { name: "The one" }, keyed);
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
    }
    expect((await api.post("/v1/projects", { name: "Second" })).status).toBe(402);
    const settled = await settledUsage(api);
    expect(settled.quotas.projects).toEqual({ used: 1, limit: 1 });
    expect(counters(settled)).toEqual({ requests: 2, dry_run_requests: 0, replays: 3 });
  });

  test("counts from several server processes add up exactly", async () => {
    const second = await startServer();
    try {
      const { token } = await newCompany();
      const a = suite.api.as(token);
      const b = new Api(second.baseUrl, token);
      await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? b : a).get("/v1/clients")));
      expect(counters(await settledUsage(a))).toEqual({
        requests: 40,
        dry_run_requests: 0,
        replays: 0,
      });
    } finally {
      await second.stop();
    }
  });
});

describe("graceful shutdown", () => {
  test("SIGTERM stops accepting, lets the in-flight write finish, and flushes the counters", async () => {
    const server = await startServer({ env: { ERP_USAGE_FLUSH_MS: "3600000" } });
    const { token, companyId } = await newCompany({ quotas: { projects: 50 } });
    const api = new Api(server.baseUrl, token);
    for (let i = 0; i < 4; i += 1) expect((await api.get("/v1/projects")).status).toBe(200);
    expect(await storedCounters(companyId)).toBeUndefined();

    // Holding the company's project quota counter parks the create inside its transaction.
    const blocker = await testDb().pool.getConnection();
    try {
      await blocker.beginTransaction();
      await blocker.query(
        "SELECT value FROM company_counters WHERE company_id = ? AND name = 'projects' FOR UPDATE",
        [companyId],
      );
      const inFlight = api.post("/v1/projects", { name: "Finishes during shutdown" });
      await Bun.sleep(300);
      server.process.kill("SIGTERM");
      await Bun.sleep(300);
      expect(server.process.exitCode).toBeNull();
      const late = await fetch(`${server.baseUrl}/healthz`, {
        headers: { connection: "close" },
      }).then(
        (r) => r.status,
        () => "refused",
      );
      expect(late).toBe("refused");
      await blocker.commit();
      expect((await inFlight).status).toBe(201);
    } finally {
      blocker.release();
    }
    expect(await server.process.exited).toBe(0);
    expect(await storedCounters(companyId)).toEqual({
      requests: 5,
      dry_run_requests: 0,
      replays: 0,
    });
  });
});
