// Fault suite (docs/errors.md): a lock held on a hot table or row. Requests that need it end within the
// 10 s bound with 503 database_unavailable and Retry-After (nothing changed), instead of hanging;
// other tables, other companies and /healthz keep answering; once the lock goes, all is well.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import mysql from "mysql2/promise";
import type { Api, ApiResponse } from "@erp/testing/api";
import { newCompany } from "@erp/testing/company";
import { testDatabaseUrl } from "@erp/testing/server";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(60_000);

const BOUND_MS = 10_500;
const suite = useServer();
let api: Api;
let other: Api;
let locker: mysql.Connection;
let workerId: number;

beforeAll(async () => {
  api = suite.api.as((await newCompany()).token);
  other = suite.api.as((await newCompany()).token);
  const made = await api.post("/v1/workers", { name: "Locked worker" });
  workerId = made.body.data.id;
  locker = await mysql.createConnection(testDatabaseUrl());
});

afterAll(async () => {
  await locker?.end();
});

async function timed(
  send: () => Promise<ApiResponse>,
): Promise<{ response: ApiResponse; ms: number }> {
  const started = performance.now();
  const response = await send();
  return { response, ms: Math.round(performance.now() - started) };
}

function expectUnavailableWithinBound(
  label: string,
  result: { response: ApiResponse; ms: number },
): void {
  console.log(
    `[fault: lock] ${label}: ${result.response.status} ${result.response.body?.code ?? ""} after ${result.ms} ms`,
  );
  expect(result.response.status).toBe(503);
  expect(result.response.body.code).toBe("database_unavailable");
  expect(Number(result.response.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(result.ms).toBeLessThan(BOUND_MS);
}

test(
  "LOCK TABLES workers WRITE: list, create, PATCH and DELETE of workers end with 503 within " +
    "the bound; the rest answers",
  async () => {
    await locker.query("LOCK TABLES workers WRITE");
    try {
      const started = performance.now();
      const [list, create, patch, remove, projects, health] = await Promise.all([
        timed(() => api.get("/v1/workers")),
        timed(() =>
          api.post(
            "/v1/workers",
            { name: "Blocked" },
            { headers: { "idempotency-key": "lock-create-1" } },
          ),
        ),
        timed(() => api.patch(`/v1/workers/${workerId}`, { name: "Renamed" })),
        timed(() => api.delete(`/v1/workers/${workerId}`)),
        // Started alongside the blocked requests: they must not take every pooled connection.
        (async () => {
          await Bun.sleep(500);
          return timed(() => other.get("/v1/projects"));
        })(),
        (async () => {
          await Bun.sleep(500);
          return timed(() => suite.api.get("/healthz"));
        })(),
      ]);
      expectUnavailableWithinBound("GET /v1/workers", list);
      expectUnavailableWithinBound("POST /v1/workers", create);
      expectUnavailableWithinBound("PATCH /v1/workers/{id}", patch);
      expectUnavailableWithinBound("DELETE /v1/workers/{id}", remove);
      console.log(
        `[fault: lock] meanwhile GET /v1/projects (other company) ${projects.response.status} in ` +
          `${projects.ms} ms, /healthz ${health.response.status} in ${health.ms} ms; all done ` +
          `in ${Math.round(performance.now() - started)} ms`,
      );
      expect(projects.response.status).toBe(200);
      expect(projects.ms).toBeLessThan(2_000);
      expect(health.response.status).toBe(200);
      expect(health.response.body.database).toBe("up");
    } finally {
      await locker.query("UNLOCK TABLES");
    }

    // Nothing was changed by the refused writes, and the same key now runs (it was never bound).
    const after = await api.get(`/v1/workers/${workerId}`);
    expect(after.status).toBe(200);
    expect(after.body.data.name).toBe("Locked worker");
    const retried = await api.post(
      "/v1/workers",
      { name: "Blocked" },
      { headers: { "idempotency-key": "lock-create-1" } },
    );
    expect(retried.status).toBe(201);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    const listed = await api.get("/v1/workers?q=Blocked");
    expect(listed.body.data.length).toBe(1);
  },
);

test(
  "a row lock held by another transaction: PATCH of that row ends with 503 within the bound, " +
    "other rows are unaffected",
  async () => {
    const free = (await api.post("/v1/workers", { name: "Free worker" })).body.data.id;
    await locker.beginTransaction();
    try {
      await locker.query("SELECT id FROM workers WHERE id = ? FOR UPDATE", [workerId]);
      const [blocked, unaffected] = await Promise.all([
        timed(() => api.patch(`/v1/workers/${workerId}`, { name: "Renamed" })),
        (async () => {
          await Bun.sleep(300);
          return timed(() => api.patch(`/v1/workers/${free}`, { name: "Free and renamed" }));
        })(),
      ]);
      expectUnavailableWithinBound("PATCH of the locked row", blocked);
      console.log(
        `[fault: lock] PATCH of another row meanwhile: ${unaffected.response.status} in ${unaffected.ms} ms`,
      );
      expect(unaffected.response.status).toBe(200);
    } finally {
      await locker.rollback();
    }
    const after = await api.get(`/v1/workers/${workerId}`);
    expect(after.body.data.name).toBe("Locked worker");
    expect((await api.patch(`/v1/workers/${workerId}`, { name: "Renamed" })).status).toBe(200);
  },
);
