// Idempotency keys (docs/writes-and-retries.md): one run per key and company, the outcome
// replayed with Idempotent-Replayed: true, reuse and concurrency refused with 409.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { RowDataPacket } from "mysql2";
import { purgeExpired } from "@erp/server/housekeeping";
import { fingerprintOf } from "@erp/server/fingerprint";
import { Api, type ApiResponse } from "@erp/testing/api";
import { newCompany, testDb } from "@erp/testing/company";
import { startServer } from "@erp/testing/server";
import { useServer } from "@erp/testing/suite";

// Server starts, crash recovery and waits for a fresh rate window outlast bun's 5 s default
// (bunfig.toml has no test timeout setting).
setDefaultTimeout(30_000);

const suite = useServer();

async function company(
  overrides: Parameters<typeof newCompany>[0] = {},
): Promise<{ api: Api; companyId: number }> {
  const created = await newCompany(overrides);
  return { api: suite.api.as(created.token), companyId: created.companyId };
}

const keyed = (key: string, headers: Record<string, string> = {}) => ({
  headers: { "idempotency-key": key, ...headers },
});

function expectCode(response: ApiResponse, status: number, code: string): void {
  expect({ status: response.status, code: response.body?.code }).toEqual({ status, code });
  expect(response.headers.get("content-type")).toStartWith("application/problem+json");
}

async function count(api: Api, resource: string): Promise<number> {
  return (await api.get(`/v1/${resource}`)).body.meta.total;
}

async function keyRows(companyId: number): Promise<RowDataPacket[]> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT CAST(idempotency_key AS CHAR) AS idempotency_key, status_code FROM idempotency_keys WHERE company_id = ?",
    [companyId],
  );
  return rows;
}

describe("replays", () => {
  test("a retry with the same key and body replays status, body and Location, and runs nothing", async () => {
    const { api } = await company();
    const first = await api.post("/v1/projects", { name: "Depot" }, keyed("create-depot"));
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const retry = await api.post("/v1/projects", { name: "Depot" }, keyed("create-depot"));
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get("location")).toBe(first.headers.get("location"));
    expect(retry.headers.get("content-type")).toStartWith("application/json");
    expect(await count(api, "projects")).toBe(1);
  });

  test("the order of keys in the body does not matter", async () => {
    const { api } = await company();
    const first = await api.post(
      "/v1/clients",
      { name: "Acme", email: "a@acme.test", status: "ACTIVE" },
      keyed("acme"),
    );
    const retry = await api.post(
      "/v1/clients",
      { status: "ACTIVE", email: "a@acme.test", name: "Acme" },
      keyed("acme"),
    );
    expect(first.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body).toEqual(first.body);
    expect(await count(api, "clients")).toBe(1);
  });

  test("PATCH and DELETE replay their first outcome", async () => {
    const { api } = await company();
    const id = (await api.post("/v1/workers", { name: "Ann" })).body.data.id as number;
    const patch = await api.patch(`/v1/workers/${id}`, { name: "Anna" }, keyed("rename"));
    expect(patch.body.data.changes).toEqual({ name: { from: "Ann", to: "Anna" } });
    await api.patch(`/v1/workers/${id}`, { name: "Hanna" });
    const patchAgain = await api.patch(`/v1/workers/${id}`, { name: "Anna" }, keyed("rename"));
    expect(patchAgain.headers.get("idempotent-replayed")).toBe("true");
    expect(patchAgain.body).toEqual(patch.body);
    expect((await api.get(`/v1/workers/${id}`)).body.data.name).toBe("Hanna");

    const removal = await api.delete(`/v1/workers/${id}`, keyed("remove"));
    expect(removal.status).toBe(200);
    const removalAgain = await api.delete(`/v1/workers/${id}`, keyed("remove"));
    expect(removalAgain.status).toBe(200);
    expect(removalAgain.headers.get("idempotent-replayed")).toBe("true");
    expect(removalAgain.body).toEqual(removal.body);
    expect((await api.delete(`/v1/workers/${id}`)).status).toBe(404);
  });

  test("a 422 binds nothing: the same key with the fixed body runs", async () => {
    const { api, companyId } = await company();
    const orphan = await api.post(
      "/v1/projects",
      { name: "Orphan", client_id: 999_999_999 },
      keyed("orphan"),
    );
    expectCode(orphan, 422, "validation_failed");
    const again = await api.post(
      "/v1/projects",
      { name: "Orphan", client_id: 999_999_999 },
      keyed("orphan"),
    );
    expectCode(again, 422, "validation_failed");
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    const noName = await api.post("/v1/projects", { code: "NO-NAME" }, keyed("orphan"));
    expectCode(noName, 422, "validation_failed");
    expect(await keyRows(companyId)).toEqual([]);
    const fixed = await api.post(
      "/v1/projects",
      { name: "Fixed", code: "NO-NAME" },
      keyed("orphan"),
    );
    expect(fixed.status).toBe(201);
    expect(await count(api, "projects")).toBe(1);
  });

  test("a 404 or a 409 of the operation binds nothing either: the retry sees the current state", async () => {
    const { api } = await company();
    const missing = await api.patch("/v1/clients/999999999", { name: "X" }, keyed("missing"));
    expectCode(missing, 404, "not_found");
    expect(
      (await api.patch("/v1/clients/999999999", { name: "X" }, keyed("missing"))).headers.get(
        "idempotent-replayed",
      ),
    ).toBeNull();

    const first = (await api.post("/v1/projects", { name: "A", code: "DUP" })).body.data
      .id as number;
    expectCode(
      await api.post("/v1/projects", { name: "B", code: "DUP" }, keyed("clash")),
      409,
      "unique_violation",
    );
    expect((await api.delete(`/v1/projects/${first}`)).status).toBe(200);
    const retry = await api.post("/v1/projects", { name: "B", code: "DUP" }, keyed("clash"));
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
  });

  test("a dry-run never consumes its key: dry-run, then the real write with the same key runs once", async () => {
    const { api, companyId } = await company();
    const dry = await api.post(
      "/v1/projects",
      { name: "Preview" },
      keyed("preview", { "x-dry-run": "1" }),
    );
    expect(dry.status).toBe(200);
    const dryAgain = await api.post(
      "/v1/projects?dry_run=1",
      { name: "Preview" },
      keyed("preview"),
    );
    expect(dryAgain.status).toBe(200);
    expect(dryAgain.headers.get("idempotent-replayed")).toBeNull();
    expect(await keyRows(companyId)).toEqual([]);
    const real = await api.post("/v1/projects", { name: "Preview" }, keyed("preview"));
    expect(real.status).toBe(201);
    expect(
      (await api.post("/v1/projects", { name: "Preview" }, keyed("preview"))).headers.get(
        "idempotent-replayed",
      ),
    ).toBe("true");
    // Once the real write is stored, a dry-run under its key is another request: a reuse.
    expectCode(
      await api.post("/v1/projects", { name: "Preview" }, keyed("preview", { "x-dry-run": "1" })),
      409,
      "idempotency_key_reuse",
    );
    expect(await count(api, "projects")).toBe(1);
  });
});

describe("binding and scope", () => {
  test("the same key with another body, path or method is 409 idempotency_key_reuse", async () => {
    const { api } = await company();
    expect((await api.post("/v1/clients", { name: "One" }, keyed("k1"))).status).toBe(201);
    expectCode(
      await api.post("/v1/clients", { name: "Two" }, keyed("k1")),
      409,
      "idempotency_key_reuse",
    );
    expectCode(
      await api.post("/v1/workers", { name: "One" }, keyed("k1")),
      409,
      "idempotency_key_reuse",
    );
    expect(await count(api, "clients")).toBe(1);
    expect(await count(api, "workers")).toBe(0);
  });

  test("keys are scoped to the company", async () => {
    const a = await company();
    const b = await company();
    const first = await a.api.post("/v1/clients", { name: "Shared key" }, keyed("shared"));
    const other = await b.api.post("/v1/clients", { name: "Shared key" }, keyed("shared"));
    expect(other.status).toBe(201);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    expect(other.body.data.id).not.toBe(first.body.data.id);
    expect(await count(b.api, "clients")).toBe(1);
  });

  test("keys compare exactly: another case is another key", async () => {
    const { api } = await company();
    for (const key of ["Case", "case", "CASE"])
      expect((await api.post("/v1/clients", { name: "C" }, keyed(key))).status).toBe(201);
    expect(await count(api, "clients")).toBe(3);
  });

  test(
    "a key must be 1-255 printable ASCII characters, else 400 invalid_idempotency_key and " +
      "nothing runs",
    async () => {
      const { api } = await company();
      for (const key of ["", "x".repeat(256), "caf\u00e9"]) {
        expectCode(
          await api.post("/v1/clients", { name: "Bad key" }, keyed(key)),
          400,
          "invalid_idempotency_key",
        );
      }
      expect(
        (await api.post("/v1/clients", { name: "Long key" }, keyed("x".repeat(255)))).status,
      ).toBe(201);
      expect(await count(api, "clients")).toBe(1);
    },
  );

  test("rejections before the operation (415, 402 feature_off) are not stored", async () => {
    const { api, companyId } = await company({ addons: ["api"] });
    const wrongType = await api.request("POST", "/v1/clients", {
      rawBody: JSON.stringify({ name: "X" }),
      headers: { "content-type": "text/plain", "idempotency-key": "early" },
    });
    expect(wrongType.status).toBe(415);
    expect((await api.post("/v1/estimates", { title: "X" }, keyed("early"))).status).toBe(402);
    expect(await keyRows(companyId)).toEqual([]);
    expect((await api.post("/v1/clients", { name: "X" }, keyed("early"))).status).toBe(201);
  });
});

describe("concurrency and expiry", () => {
  test("20 concurrent duplicates run once; the others replay or are 409 idempotency_in_progress", async () => {
    const { api } = await company();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => api.post("/v1/projects", { name: "Once" }, keyed("burst"))),
    );
    const ids = new Set(responses.filter((r) => r.status === 201).map((r) => r.body.data.id));
    expect(ids.size).toBe(1);
    for (const response of responses) {
      if (response.status === 409) {
        expectCode(response, 409, "idempotency_in_progress");
        expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
      } else expect(response.status).toBe(201);
    }
    expect(
      responses.filter((r) => r.status === 201 && !r.headers.get("idempotent-replayed")),
    ).toHaveLength(1);
    expect(await count(api, "projects")).toBe(1);
  });

  test("the same keys raced across two server processes run once each", async () => {
    const second = await startServer();
    try {
      const { api } = await company();
      const other = new Api(second.baseUrl, api.token);
      const keys = Array.from({ length: 8 }, (_, i) => `race-${i}`);
      const responses = await Promise.all(
        keys.flatMap((key) =>
          Array.from({ length: 6 }, (_, i) =>
            (i % 2 ? other : api).post("/v1/workers", { name: key }, keyed(key)),
          ),
        ),
      );
      expect(
        responses.every((r) => r.status === 201 || r.body?.code === "idempotency_in_progress"),
      ).toBe(true);
      const list = (await api.get("/v1/workers?limit=100")).body.data as { name: string }[];
      expect(list.map((w) => w.name).sort()).toEqual([...keys].sort());
    } finally {
      await second.stop();
    }
  });

  test(
    "a duplicate while the first still holds the key waits, then is 409 " +
      "idempotency_in_progress; once the first is gone the retry runs",
    async () => {
      const { api, companyId } = await company();
      const fingerprint = fingerprintOf("POST", "/v1/clients", false, { name: "Stuck" });
      // A first request that is still running: its outcome row is written but not committed.
      const holder = await testDb().pool.getConnection();
      try {
        await holder.query("BEGIN");
        await holder.query(
          "INSERT INTO idempotency_keys (company_id, idempotency_key, fingerprint, status_code, " +
            "response_headers, response_body, created_at) VALUES (?, 'stuck', ?, 201, '{}', " +
            "'{}', NOW(3))",
          [companyId, fingerprint],
        );
        const started = Date.now();
        const busy = await api.post("/v1/clients", { name: "Stuck" }, keyed("stuck"));
        expectCode(busy, 409, "idempotency_in_progress");
        expect(busy.headers.get("retry-after")).toBe("1");
        expect(Date.now() - started).toBeLessThan(10_000);
        expect(await count(api, "clients")).toBe(0);
        // The first request died: its transaction is rolled back, nothing of it remains.
        await holder.query("ROLLBACK");
      } finally {
        holder.release();
      }
      const retry = await api.post("/v1/clients", { name: "Stuck" }, keyed("stuck"));
      expect(retry.status).toBe(201);
      expect(retry.headers.get("idempotent-replayed")).toBeNull();
      expect(
        (await api.post("/v1/clients", { name: "Stuck" }, keyed("stuck"))).headers.get(
          "idempotent-replayed",
        ),
      ).toBe("true");
      expect(await count(api, "clients")).toBe(1);
    },
  );

  test("after 24 h a key is forgotten: the retry runs anew, and expired keys are purged", async () => {
    const { api, companyId } = await company();
    await api.post("/v1/clients", { name: "Old" }, keyed("old"));
    await api.post("/v1/clients", { name: "Fresh" }, keyed("fresh"));
    const db = testDb().pool;
    await db.query(
      "UPDATE idempotency_keys SET created_at = NOW(3) - INTERVAL 25 HOUR WHERE company_id = ? " +
        "AND idempotency_key = 'old'",
      [companyId],
    );
    const again = await api.post("/v1/clients", { name: "Old" }, keyed("old"));
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(await count(api, "clients")).toBe(3);

    await db.query(
      "UPDATE idempotency_keys SET created_at = NOW(3) - INTERVAL 25 HOUR WHERE company_id = ? " +
        "AND idempotency_key = 'old'",
      [companyId],
    );
    await purgeExpired(testDb().db);
    expect((await keyRows(companyId)).map((row) => row.idempotency_key)).toEqual(["fresh"]);
  });
});
