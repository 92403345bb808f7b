// Batch writes and upserts by external id (docs/writes-and-retries.md).
import { beforeAll, describe, expect, test } from "bun:test";
import type { RowDataPacket } from "mysql2";
import type { Api } from "@erp/testing/api";
import { newCompany, testDb } from "@erp/testing/company";
import { useServer } from "@erp/testing/suite";

const suite = useServer();
let api: Api;
let companyId: number;

beforeAll(async () => {
  const company = await newCompany();
  api = suite.api.as(company.token);
  companyId = company.companyId;
});

async function eventsOf(type: string): Promise<number> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT COUNT(*) AS n FROM events WHERE company_id = ? AND type = ?",
    [companyId, type],
  );
  return Number(rows[0]!.n);
}

describe("POST /v1/{resource}/batch", () => {
  test(
    "items are written in order, each on its own: refused ones are reported, the rest " +
      "written, one event each",
    async () => {
      const before = await eventsOf("client.created");
      const response = await api.post("/v1/clients/batch", {
        items: [
          { name: "Batch A" },
          { name: "", email: "not-an-email" },
          { name: "Batch C", external_id: "crm-c" },
        ],
      });
      expect(response.status).toBe(200);
      const data = response.body.data;
      expect(data).toMatchObject({
        dry_run: false,
        atomic: false,
        created: 2,
        updated: 0,
        failed: 1,
      });
      expect(data.results.map((r: { status: number }) => r.status)).toEqual([201, 422, 201]);
      expect(data.results[1].error).toMatchObject({ status: 422, code: "validation_failed" });
      expect(data.results[1].error.errors.map((e: { field: string }) => e.field).sort()).toEqual([
        "email",
        "name",
      ]);
      for (const index of [0, 2]) {
        const record = await api.get(`/v1/clients/${data.results[index].id}`);
        expect(record.status).toBe(200);
      }
      expect(
        (await api.get("/v1/clients?external_id=crm-c")).body.data.map(
          (c: { name: string }) => c.name,
        ),
      ).toEqual(["Batch C"]);
      expect(await eventsOf("client.created")).toBe(before + 2);
    },
  );

  test(
    "a duplicate code inside the batch: the first wins, the second is refused; a quota " +
      "overrun refuses the rest",
    async () => {
      const company = await newCompany({ plan: "pro", quotas: { workers: 3 } });
      const limited = suite.api.as(company.token);
      const projects = await limited.post("/v1/projects/batch", {
        items: [
          { name: "P1", code: "DUP" },
          { name: "P2", code: "DUP" },
        ],
      });
      expect(projects.body.data.results.map((r: { status: number }) => r.status)).toEqual([
        201, 409,
      ]);
      expect(projects.body.data.results[1].error.code).toBe("unique_violation");
      const workers = await limited.post("/v1/workers/batch", {
        items: Array.from({ length: 5 }, (_, i) => ({ name: `W${i}` })),
      });
      expect(workers.body.data.results.map((r: { status: number }) => r.status)).toEqual([
        201, 201, 201, 402, 402,
      ]);
      expect(workers.body.data.results[3].error.code).toBe("quota_exceeded");
    },
  );

  test("a dry-run finds the same refusals as the real run, in order, and writes nothing", async () => {
    const company = await newCompany({ plan: "pro", quotas: { workers: 2 } });
    const limited = suite.api.as(company.token);
    const items = [
      { name: "D1", email: "d1@example.com", external_id: "d-1" },
      { name: "D2", external_id: "d-1" },
      { name: "D3" },
      { name: "D4" },
    ];
    const dry = await limited.post("/v1/workers/batch?dry_run=1", { items });
    expect(dry.status).toBe(200);
    expect(dry.body.data).toMatchObject({ dry_run: true, created: 2, failed: 2 });
    expect(
      dry.body.data.results.map((r: { status: number; id: number | null }) => [r.status, r.id]),
    ).toEqual([
      [201, null],
      [409, null],
      [201, null],
      [402, null],
    ]);
    expect((await limited.get("/v1/workers")).body.meta.total).toBe(0);
    const real = await limited.post("/v1/workers/batch", { items });
    expect(real.body.data.results.map((r: { status: number }) => r.status)).toEqual([
      201, 409, 201, 402,
    ]);
  });

  test(
    "atomic: one refused item refuses the batch (422 batch_failed with every result) and " +
      "writes nothing",
    async () => {
      const response = await api.post("/v1/subcontractors/batch", {
        atomic: true,
        items: [{ name: "Atomic 1" }, { name: "Atomic 2", email: "bad" }],
      });
      expect(response.status).toBe(422);
      expect(response.body.code).toBe("batch_failed");
      expect(response.body.data.results.map((r: { status: number }) => r.status)).toEqual([
        201, 422,
      ]);
      expect((await api.get("/v1/subcontractors?q=Atomic")).body.data).toEqual([]);
      const fine = await api.post("/v1/subcontractors/batch", {
        atomic: true,
        items: [{ name: "Atomic 1" }, { name: "Atomic 2" }],
      });
      expect(fine.body.data).toMatchObject({ atomic: true, created: 2, failed: 0 });
    },
  );

  test(
    "on_conflict update upserts by external_id: existing records change in place, new ones " +
      "are created",
    async () => {
      const first = await api.post("/v1/workers/batch", {
        on_conflict: "update",
        items: [
          { name: "Ann", external_id: "hr-1" },
          { name: "Bob", external_id: "hr-2" },
        ],
      });
      expect(first.body.data).toMatchObject({ created: 2, updated: 0 });
      const second = await api.post("/v1/workers/batch", {
        on_conflict: "update",
        items: [
          { name: "Ann Smith", external_id: "hr-1" },
          { name: "Bob", external_id: "hr-2" },
          { name: "Cy", external_id: "hr-3" },
          { name: "No id" },
        ],
      });
      expect(
        second.body.data.results.map(
          (r: { action?: string; status: number }) => r.action ?? r.status,
        ),
      ).toEqual(["updated", "unchanged", "created", 422]);
      expect(second.body.data.results[0].id).toBe(first.body.data.results[0].id);
      expect(
        (await api.get("/v1/workers?external_id=hr-1")).body.data.map(
          (w: { name: string }) => w.name,
        ),
      ).toEqual(["Ann Smith"]);
    },
  );

  test("one Idempotency-Key covers the batch: a retry replays it, another body under the key is refused", async () => {
    const body = { items: [{ name: "Keyed batch 1" }, { name: "Keyed batch 2" }] };
    const headers = { "idempotency-key": `batch-${crypto.randomUUID()}` };
    const first = await api.post("/v1/clients/batch", body, { headers });
    const again = await api.post("/v1/clients/batch", body, { headers });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect((await api.get("/v1/clients?q=Keyed batch")).body.meta.total).toBe(2);
    expect(
      (await api.post("/v1/clients/batch", { items: [{ name: "Other" }] }, { headers })).body.code,
    ).toBe("idempotency_key_reuse");
  });

  test("the envelope is validated whole: items 1 to 500, atomic a boolean, on_conflict error or update", async () => {
    const tooMany = await api.post("/v1/clients/batch", {
      items: Array.from({ length: 501 }, (_, i) => ({ name: `N${i}` })),
    });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors).toContainEqual(
      expect.objectContaining({ field: "items", code: "too_long" }),
    );
    const bad = await api.post("/v1/clients/batch", {
      items: [],
      atomic: "yes",
      on_conflict: "merge",
      extra: 1,
    });
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      "atomic",
      "extra",
      "items",
      "on_conflict",
    ]);
    expect((await api.get("/v1/clients?q=N4")).body.data).toEqual([]);
  });
});

describe("PUT /v1/{resource}/by-external-id/{external_id}", () => {
  test("creates (201) when no live record has the external id, then updates it in place (200)", async () => {
    const created = await api.request("PUT", "/v1/projects/by-external-id/erp%2F42", {
      body: { name: "Upserted", code: "UP-1" },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe(`/v1/projects/${created.body.data.id}`);
    // Both answers say `created` and `updated`: the document gives the 201 and the 200 one schema.
    expect(created.body.data).toEqual({
      id: created.body.data.id,
      created: true,
      updated: false,
      dry_run: false,
    });
    const updated = await api.request("PUT", "/v1/projects/by-external-id/erp%2F42", {
      body: { name: "Upserted again" },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({
      id: created.body.data.id,
      created: false,
      updated: true,
      record: { name: "Upserted again", code: "UP-1", external_id: "erp/42" },
    });
    const dry = await api.request("PUT", "/v1/projects/by-external-id/erp-new?dry_run=1", {
      body: { name: "Not yet" },
    });
    expect(dry.status).toBe(200);
    expect(dry.body.data).toEqual({ id: null, created: false, updated: false, dry_run: true });
    expect((await api.get("/v1/projects?external_id=erp-new")).body.data).toEqual([]);
  });

  test("If-Match needs an existing, matching record; the body's external id must match the path's", async () => {
    expect(
      (
        await api.request("PUT", "/v1/clients/by-external-id/none-yet", {
          body: { name: "X" },
          headers: { "if-match": "*" },
        })
      ).status,
    ).toBe(412);
    const mismatch = await api.request("PUT", "/v1/clients/by-external-id/a-1", {
      body: { name: "X", external_id: "b-2" },
    });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.errors[0].field).toBe("external_id");
  });

  test("concurrent upserts of one new external id make one record", async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api.request("PUT", "/v1/clients/by-external-id/race-1", { body: { name: `Racer ${i}` } }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect((await api.get("/v1/clients?external_id=race-1")).body.meta.total).toBe(1);
  });
});
