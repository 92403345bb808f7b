// Restores (docs/concepts.md, "Deletes"): a deleted record comes back as it was, one by one or in
// batches, checked as a create (quota, unique values, references), with what was deleted with it.
import { beforeAll, describe, expect, test } from "bun:test";
import type { RowDataPacket } from "mysql2";
import { create, type Api } from "@erp/testing/api";
import { purgeExpired } from "@erp/server/housekeeping";
import { erpFor } from "@erp/testing/cli";
import { newCompany, testDb } from "@erp/testing/company";
import { expectProblem, storedRow } from "@erp/testing/rules";
import { useServer } from "@erp/testing/suite";
import { ErpClient } from "../sdk/mod.ts";

const suite = useServer();
let api: Api;
let token: string;

beforeAll(async () => {
  token = (await newCompany()).token;
  api = suite.api.as(token);
});

/** Every live record of a collection, by id, read page by page. */
async function everyRecord(client: Api, path: string): Promise<Map<number, unknown>> {
  const records = new Map<number, unknown>();
  let after = 0;
  for (;;) {
    const page = await client.get(`${path}?limit=100&after_id=${after}&total=false`);
    expect(page.status).toBe(200);
    for (const record of page.body.data) records.set(record.id, record);
    if (page.body.meta.next_after_id == null) return records;
    after = page.body.meta.next_after_id;
  }
}

const withoutUpdatedAt = ({ updated_at: _, ...rest }: { updated_at?: unknown }) => rest;

async function eventCount(companyId: number, type: string): Promise<number> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT COUNT(*) AS n FROM events WHERE company_id = ? AND type = ?",
    [companyId, type],
  );
  return Number(rows[0]!.n);
}

describe("restore", () => {
  test("5,000 workers deleted in batches come back in batches exactly as they were, counted and " +
    "with their events", async () => {
    const company = await newCompany({ plan: "enterprise", quotas: { workers: 5000 } });
    const client = suite.api.as(company.token);
    const ids: number[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const response = await client.post("/v1/workers/batch", {
        items: Array.from({ length: 500 }, (_, i) => ({
          name: `Worker ${batch}-${i}`,
          email: `w${batch}-${i}@example.com`,
          external_id: `hr-${batch}-${i}`,
        })),
      });
      expect(response.body.data.created).toBe(500);
      ids.push(...response.body.data.results.map((result: { id: number }) => result.id));
    }
    const before = await everyRecord(client, "/v1/workers");
    expect(before.size).toBe(5000);
    // Deletes have no batch form: ten at a time.
    for (let start = 0; start < ids.length; start += 10) {
      const statuses = await Promise.all(
        ids
          .slice(start, start + 10)
          .map(async (id) => (await client.delete(`/v1/workers/${id}`)).status),
      );
      expect(statuses.every((status) => status === 200)).toBe(true);
    }
    expect((await client.get("/v1/workers?limit=1")).body.meta.total).toBe(0);
    expect((await client.get("/v1/usage")).body.data.quotas.workers).toEqual({
      used: 0,
      limit: 5000,
    });

    // A dry-run tells every item and writes nothing.
    const dry = await client.post("/v1/workers/batch?dry_run=1", {
      operation: "restore",
      items: ids.slice(0, 500).map((id) => ({ id })),
    });
    expect(dry.body.data).toMatchObject({ dry_run: true, restored: 500, failed: 0 });
    expect((await client.get("/v1/workers?limit=1")).body.meta.total).toBe(0);
    expect(await eventCount(company.companyId, "worker.restored")).toBe(0);

    for (let batch = 0; batch < 10; batch++) {
      const chunk = ids.slice(batch * 500, batch * 500 + 500);
      const response = await client.post("/v1/workers/batch", {
        operation: "restore",
        atomic: true,
        items: chunk.map((id) => ({ id })),
      });
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({ restored: 500, created: 0, failed: 0 });
      expect(response.body.data.results[0]).toMatchObject({
        index: 0,
        status: 200,
        id: chunk[0],
        action: "restored",
      });
    }
    const after = await everyRecord(client, "/v1/workers");
    expect(after.size).toBe(5000);
    for (const [id, record] of before)
      expect(withoutUpdatedAt(after.get(id) as object)).toEqual(withoutUpdatedAt(record as object));
    expect((await client.get("/v1/workers?limit=1")).body.meta.total).toBe(5000);
    expect((await client.get("/v1/usage")).body.data.quotas.workers).toEqual({
      used: 5000,
      limit: 5000,
    });
    expect(await eventCount(company.companyId, "worker.restored")).toBe(5000);
    // A restored record is live again: restoring it again is that item's 409.
    const again = await client.post("/v1/workers/batch", {
      operation: "restore",
      items: [{ id: ids[0] }],
    });
    expect(again.body.data.results[0]).toMatchObject({
      status: 409,
      error: { code: "not_deleted" },
    });
  }, 60_000);

  test("a restored record keeps its id, fields and external_id, with an event; dry-run writes nothing", async () => {
    const id = await create(api, "/v1/subcontractors", {
      name: "Back again",
      external_id: "sub-back",
    });
    const original = (await api.get(`/v1/subcontractors/${id}`)).body.data;
    expect((await api.delete(`/v1/subcontractors/${id}`)).status).toBe(200);
    const total = (await api.get("/v1/subcontractors?limit=1")).body.meta.total;

    const dry = await api.post(`/v1/subcontractors/${id}/restore`, undefined, {
      headers: { "x-dry-run": "1" },
    });
    expect(dry.status).toBe(200);
    expect(dry.body.data).toMatchObject({ id, restored: false, dry_run: true });
    expectProblem(await api.get(`/v1/subcontractors/${id}`), 404, "not_found");

    const restored = await api.post(`/v1/subcontractors/${id}/restore`, undefined, {
      headers: { "idempotency-key": `restore-${id}` },
    });
    expect(restored.status).toBe(200);
    expect(restored.body.data).toMatchObject({
      id,
      restored: true,
      dry_run: false,
      would_restore: [{ resource: "subcontractors", id }],
    });
    const back = (await api.get(`/v1/subcontractors/${id}`)).body.data;
    expect(withoutUpdatedAt(back)).toEqual(withoutUpdatedAt(original));
    expect(back.external_id).toBe("sub-back");
    expect((await api.get("/v1/subcontractors?limit=1")).body.meta.total).toBe(total + 1);
    const history = (await api.get(`/v1/subcontractors/${id}/events`)).body.data;
    expect(history.map((event: { type: string }) => event.type)).toEqual([
      "subcontractor.created",
      "subcontractor.deleted",
      "subcontractor.restored",
    ]);
    // The key replays the answer; a live record is 409 not_deleted.
    const replay = await api.post(`/v1/subcontractors/${id}/restore`, undefined, {
      headers: { "idempotency-key": `restore-${id}` },
    });
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expectProblem(await api.post(`/v1/subcontractors/${id}/restore`), 409, "not_deleted");
    expectProblem(await api.post("/v1/subcontractors/999999999/restore"), 404, "not_found");
  });

  test(
    "equipment whose serial_number a live record took is refused with 409 naming it; " +
      "restored, its unbilled rentals come back",
    async () => {
      const project = await create(api, "/v1/projects", {
        name: "Site",
        code: `SITE-${Date.now()}`,
      });
      const serial = `SN-${Date.now()}`;
      const crane = await create(api, "/v1/equipment", { name: "Crane", serial_number: serial });
      const rental = await create(api, `/v1/equipment/${crane}/rentals`, {
        project_id: project,
        start_date: "2026-03-01",
      });
      expect((await api.delete(`/v1/equipment/${crane}`)).body.data.would_delete).toEqual([
        { resource: "equipment", id: crane },
        { resource: "rentals", id: rental },
      ]);
      const taker = await create(api, "/v1/equipment", {
        name: "New crane",
        serial_number: serial,
      });
      const refused = await api.post(`/v1/equipment/${crane}/restore`);
      expectProblem(refused, 409, "unique_violation");
      expect(refused.body.detail).toContain(`equipment ${taker}`);

      expect(
        (await api.patch(`/v1/equipment/${taker}`, { serial_number: `${serial}-b` })).status,
      ).toBe(200);
      const restored = await api.post(`/v1/equipment/${crane}/restore`);
      expect(restored.status).toBe(200);
      expect(restored.body.data.would_restore).toEqual([
        { resource: "equipment", id: crane },
        { resource: "rentals", id: rental },
      ]);
      const rentals = (await api.get(`/v1/equipment/${crane}/rentals`)).body.data;
      expect(rentals.map((each: { id: number }) => each.id)).toEqual([rental]);
    },
  );

  test("a project's unbilled rentals come back with it; batch restores keep item keys and atomicity", async () => {
    const equipment = await create(api, "/v1/equipment", { name: "Mixer" });
    const project = await create(api, "/v1/projects", { name: "Back site" });
    const rental = await create(api, `/v1/equipment/${equipment}/rentals`, {
      project_id: project,
      start_date: "2026-04-01",
    });
    expect((await api.delete(`/v1/projects/${project}`)).status).toBe(200);
    expectProblem(await api.get(`/v1/equipment/${equipment}/rentals/${rental}`), 404, "not_found");
    const keys = [`restore-${project}`];
    const first = await api.post("/v1/projects/batch", {
      operation: "restore",
      items: [{ id: project }],
      item_keys: keys,
    });
    expect(first.body.data).toMatchObject({ restored: 1, failed: 0 });
    expect((await api.get(`/v1/equipment/${equipment}/rentals/${rental}`)).status).toBe(200);
    const replay = await api.post("/v1/projects/batch", {
      operation: "restore",
      items: [{ id: project }],
      item_keys: keys,
    });
    expect(replay.body.data.results[0]).toMatchObject({
      status: 200,
      id: project,
      action: "restored",
      replayed: true,
    });
    expect(replay.body.data.restored).toBe(0);

    // Atomic: one live record among deleted ones refuses the batch and restores nothing.
    const gone = await create(api, "/v1/clients", { name: "Atomic" });
    expect((await api.delete(`/v1/clients/${gone}`)).status).toBe(200);
    const refused = await api.post("/v1/projects/batch", {
      operation: "restore",
      atomic: true,
      items: [{ id: project }],
    });
    expectProblem(refused, 422, "batch_failed");
    const mixed = await api.post("/v1/clients/batch", {
      operation: "restore",
      atomic: true,
      items: [{ id: gone }, { id: gone }],
    });
    expectProblem(mixed, 422, "batch_failed");
    expect(mixed.body.data.results[1].error.code).toBe("not_deleted");
    expectProblem(await api.get(`/v1/clients/${gone}`), 404, "not_found");
    const invalid = await api.post("/v1/clients/batch", {
      operation: "restore",
      items: [{ id: gone, name: "x" }],
    });
    expect(invalid.body.data.results[0]).toMatchObject({
      status: 422,
      error: { code: "validation_failed" },
    });
  });

  test("a full quota refuses a restore with 402; a deleted reference refuses it with 422", async () => {
    const company = await newCompany({ plan: "pro", quotas: { workers: 1 } });
    const limited = suite.api.as(company.token);
    const first = await create(limited, "/v1/workers", { name: "First" });
    expect((await limited.delete(`/v1/workers/${first}`)).status).toBe(200);
    await create(limited, "/v1/workers", { name: "Second" });
    expectProblem(await limited.post(`/v1/workers/${first}/restore`), 402, "quota_exceeded");

    const client = await create(api, "/v1/clients", { name: "Gone client" });
    const project = await create(api, "/v1/projects", {
      name: "Orphan",
      code: `ORPH-${Date.now()}`,
      client_id: client,
    });
    expect((await api.delete(`/v1/projects/${project}`)).status).toBe(200);
    expect((await api.delete(`/v1/clients/${client}`)).status).toBe(200);
    const orphan = await api.post(`/v1/projects/${project}/restore`);
    expectProblem(orphan, 422, "validation_failed");
    expect(orphan.body.errors[0]).toMatchObject({ field: "client_id", code: "unknown_reference" });
  });

  test("the SDK's restore(id) and `erp <resource> restore <id> [--dry-run]`", async () => {
    const sdk = new ErpClient({ baseUrl: suite.server.baseUrl, token });
    const id = await create(api, "/v1/clients", { name: "By SDK" });
    expect((await api.delete(`/v1/clients/${id}`)).status).toBe(200);
    const dry = await sdk.clients.restore(id, { dryRun: true });
    expect(dry).toMatchObject({ id, restored: false, dry_run: true });
    const back = await sdk.clients.restore(id);
    expect(back).toMatchObject({ id, restored: true, record: { id, name: "By SDK" } });

    const cli = erpFor(suite.server.baseUrl, token);
    const other = await create(api, "/v1/clients", { name: "By CLI" });
    expect((await api.delete(`/v1/clients/${other}`)).status).toBe(200);
    const preview = await cli([
      "clients",
      "restore",
      String(other),
      "--dry-run",
      "--output",
      "json",
    ]);
    expect(preview.code).toBe(0);
    expectProblem(await api.get(`/v1/clients/${other}`), 404, "not_found");
    const done = await cli(["clients", "restore", String(other), "--output", "json"]);
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ id: other, restored: true });
    expect((await api.get(`/v1/clients/${other}`)).status).toBe(200);
  });

  test("records deleted more than 90 days ago are purged; younger ones and live ones stay", async () => {
    const company = await newCompany();
    const client = suite.api.as(company.token);
    const [old, young, live] = [
      await create(client, "/v1/workers", { name: "Deleted long ago" }),
      await create(client, "/v1/workers", { name: "Deleted lately" }),
      await create(client, "/v1/workers", { name: "Live, untouched for long" }),
    ];
    const equipment = await create(client, "/v1/equipment", { name: "Old drill" });
    const project = await create(client, "/v1/projects", { name: "Old site" });
    const rental = await create(client, `/v1/equipment/${equipment}/rentals`, {
      project_id: project,
      start_date: "2026-01-05",
    });
    for (const path of [`/v1/workers/${old}`, `/v1/workers/${young}`, `/v1/equipment/${equipment}`])
      expect((await client.delete(path)).status).toBe(200);
    const age = async (table: string, id: number, days: number, deleted = true) =>
      testDb().pool.query(
        `UPDATE \`${table}\` SET updated_at = NOW(3) - INTERVAL ? ` +
          `DAY${deleted ? ", deleted_at = NOW(3) - INTERVAL ? DAY" : ""} WHERE id = ?`,
        deleted ? [days, days, id] : [days, id],
      );
    await age("workers", old, 91);
    await age("workers", young, 89);
    await age("workers", live, 200, false);
    await age("equipment", equipment, 91);
    await age("equipment_rentals", rental, 91);
    await purgeExpired(testDb().db);
    expect(await storedRow("workers", old)).toBeUndefined();
    expect(await storedRow("equipment", equipment)).toBeUndefined();
    expect(await storedRow("equipment_rentals", rental)).toBeUndefined();
    expect(await storedRow("workers", young)).toBeDefined();
    expect((await client.get(`/v1/workers/${live}`)).status).toBe(200);
    expectProblem(await client.post(`/v1/workers/${old}/restore`), 404, "not_found");
    expect((await client.post(`/v1/workers/${young}/restore`)).status).toBe(200);
  });
});
