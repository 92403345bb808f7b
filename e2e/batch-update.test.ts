// Batch updates by id (`"operation": "update"`, docs/writes-and-retries.md): PATCH rules per item,
// per-item if_match, unknown ids, unchanged items written nowhere, atomic, dry-run, item keys.
import { beforeAll, describe, expect, test } from "bun:test";
import type { RowDataPacket } from "mysql2";
import { type Api, create } from "@erp/testing/api";
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

async function events(type: string): Promise<number> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT COUNT(*) AS n FROM events WHERE company_id = ? AND type = ?",
    [companyId, type],
  );
  return Number(rows[0]!.n);
}

interface Result {
  index: number;
  status: number;
  id: number | null;
  action?: string;
  replayed?: true;
  error?: { code: string; status: number; errors?: { field: string }[] };
}

const outcomes = (results: Result[]): (string | number)[] =>
  results.map((result) => result.action ?? result.error?.code ?? result.status);

async function workers(count: number, prefix: string): Promise<number[]> {
  const response = await api.post("/v1/workers/batch", {
    items: Array.from({ length: count }, (_, i) => ({
      name: `${prefix} ${i}`,
      hourly_rate: "40.00",
    })),
  });
  return response.body.data.results.map((result: Result) => result.id!);
}

describe('POST /v1/{resource}/batch with "operation": "update"', () => {
  test(
    "each item changes the fields it sends; one that changes nothing is unchanged, with no " +
      "write and no event",
    async () => {
      const [a, b, c] = await workers(3, "Upd");
      const before = await events("worker.updated");
      const stampOfC = (await api.get(`/v1/workers/${c}`)).body.data.updated_at;
      const response = await api.post("/v1/workers/batch", {
        operation: "update",
        items: [
          { id: a, hourly_rate: 45 },
          { id: b, name: "Upd 1 renamed", phone: "+1 555 0100" },
          { id: c, hourly_rate: "40.00", name: "Upd 2" },
        ],
      });
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({ created: 0, updated: 2, failed: 0 });
      expect(response.body.data.results).toEqual([
        { index: 0, status: 200, id: a, action: "updated" },
        { index: 1, status: 200, id: b, action: "updated" },
        { index: 2, status: 200, id: c, action: "unchanged" },
      ]);
      expect((await api.get(`/v1/workers/${a}`)).body.data).toMatchObject({
        name: "Upd 0",
        hourly_rate: "45.00",
      });
      expect((await api.get(`/v1/workers/${b}`)).body.data).toMatchObject({
        name: "Upd 1 renamed",
        phone: "+1 555 0100",
        hourly_rate: "40.00",
      });
      expect((await api.get(`/v1/workers/${c}`)).body.data.updated_at).toBe(stampOfC);
      expect(await events("worker.updated")).toBe(before + 2);
      const [rows] = await testDb().pool.query<RowDataPacket[]>(
        "SELECT data FROM events WHERE company_id = ? AND type = 'worker.updated' AND record_id = ?",
        [companyId, a],
      );
      const data = typeof rows[0]!.data === "string" ? JSON.parse(rows[0]!.data) : rows[0]!.data;
      expect(data.changes).toEqual({ hourly_rate: { from: "40.00", to: "45.00" } });
    },
  );

  test("an unknown, deleted or other company's id is that item's 404; a bad id or field its 422", async () => {
    const [a, gone] = await workers(2, "Missing");
    await api.delete(`/v1/workers/${gone}`);
    const other = suite.api.as((await newCompany()).token);
    const foreign = await create(other, "/v1/workers", { name: "Foreign" });
    const response = await api.post("/v1/workers/batch", {
      operation: "update",
      items: [
        { id: 999_999_999, name: "Nobody" },
        { id: gone, name: "Gone" },
        { id: foreign, name: "Foreign" },
        { name: "No id", email: "bad" },
        { id: a, created_at: "2020-01-01T00:00:00Z" },
        { id: a, name: "Missing 0 kept" },
      ],
    });
    expect(outcomes(response.body.data.results)).toEqual([
      "not_found",
      "not_found",
      "not_found",
      "validation_failed",
      "validation_failed",
      "updated",
    ]);
    expect(response.body.data.results[0].status).toBe(404);
    const fields = (index: number) =>
      response.body.data.results[index].error.errors.map((e: { field: string }) => e.field).sort();
    expect(fields(3)).toEqual(["email", "id"]);
    expect(fields(4)).toEqual(["created_at"]);
    expect((await other.get(`/v1/workers/${foreign}`)).body.data.name).toBe("Foreign");
  });

  test("if_match refuses an item whose record changed since: by ETag or by the updated_at seen", async () => {
    const [a, b, c, d] = (await workers(4, "Match")) as [number, number, number, number];
    const read = async (id: number) => {
      const response = await api.get(`/v1/workers/${id}`);
      return { etag: response.headers.get("etag")!, updatedAt: response.body.data.updated_at };
    };
    const seen = { a: await read(a), b: await read(b), c: await read(c), d: await read(d) };
    await Bun.sleep(5);
    for (const id of [b, d]) await api.patch(`/v1/workers/${id}`, { phone: "+1 555 0199" });
    const seconds = seen.c.updatedAt.replace(/\.\d+Z$/, "Z");
    const response = await api.post("/v1/workers/batch", {
      operation: "update",
      items: [
        { id: a, if_match: seen.a.etag, name: "Match a" },
        { id: b, if_match: seen.b.etag, name: "Match b" },
        { id: c, if_match: seconds, name: "Match c" },
        { id: d, if_match: seen.d.updatedAt, name: "Match d" },
        { id: a, if_match: "yesterday", name: "Match a again" },
      ],
    });
    expect(outcomes(response.body.data.results)).toEqual([
      "updated",
      "precondition_failed",
      "updated",
      "precondition_failed",
      "validation_failed",
    ]);
    expect(response.body.data.results[1].status).toBe(412);
    expect((await api.get(`/v1/workers/${b}`)).body.data).toMatchObject({
      name: "Match 1",
      phone: "+1 555 0199",
    });
    expect((await api.get(`/v1/workers/${d}`)).body.data.name).toBe("Match 3");
  });

  test("PATCH rules hold per item: transitions, the billing_mode lock and estimates that left draft", async () => {
    const draft = await create(api, "/v1/projects", { name: "Rules draft" });
    const active = await create(api, "/v1/projects", { name: "Rules active", status: "ACTIVE" });
    const sent = await create(api, "/v1/estimates", { title: "Rules sent" });
    await api.patch(`/v1/estimates/${sent}`, { status: "SENT" });
    const response = await api.post("/v1/projects/batch", {
      operation: "update",
      items: [
        { id: draft, status: "COMPLETED" },
        { id: active, billing_mode: "COST_PLUS" },
        { id: draft, billing_mode: "COST_PLUS", status: "ACTIVE" },
        { id: draft, status: "ON_HOLD" },
      ],
    });
    expect(outcomes(response.body.data.results)).toEqual([
      "invalid_transition",
      "billing_mode_locked",
      "updated",
      "updated",
    ]);
    expect((await api.get(`/v1/projects/${draft}`)).body.data).toMatchObject({
      status: "ON_HOLD",
      billing_mode: "COST_PLUS",
    });
    const estimates = await api.post("/v1/estimates/batch", {
      operation: "update",
      items: [
        { id: sent, amount: "10.00" },
        { id: sent, status: "ACCEPTED" },
      ],
    });
    expect(outcomes(estimates.body.data.results)).toEqual(["estimate_not_draft", "updated"]);
  });

  test("unique values and references are checked in order, as the earlier items leave them", async () => {
    const client = await create(api, "/v1/clients", { name: "Ref client" });
    const p = await create(api, "/v1/projects", { name: "U1", code: "UNQ-1" });
    const q = await create(api, "/v1/projects", { name: "U2", code: "UNQ-2" });
    const response = await api.post("/v1/projects/batch", {
      operation: "update",
      items: [
        { id: q, code: "UNQ-1" },
        { id: p, code: "UNQ-3", client_id: client },
        { id: q, code: "UNQ-1" },
        { id: p, client_id: 999_999_999 },
      ],
    });
    expect(outcomes(response.body.data.results)).toEqual([
      "unique_violation",
      "updated",
      "updated",
      "validation_failed",
    ]);
    expect((await api.get(`/v1/projects/${q}`)).body.data.code).toBe("UNQ-1");
    expect((await api.get(`/v1/projects/${p}`)).body.data).toMatchObject({
      code: "UNQ-3",
      client_id: client,
    });
  });

  test("records hand unique values on among themselves in one batch, even around a circle", async () => {
    const code = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}`;
    const [a, b, c, t] = [code("A"), code("B"), code("C"), code("T")];
    const p = await create(api, "/v1/projects", { name: "Hand P", code: a });
    const q = await create(api, "/v1/projects", { name: "Hand Q", code: b });
    const response = await api.post("/v1/projects/batch", {
      operation: "update",
      items: [
        { id: p, name: "Hand P renamed" },
        { id: q, code: c },
        { id: p, code: b },
        { id: q, code: t },
        { id: p, code: c },
        { id: q, code: b },
      ],
    });
    expect(response.status).toBe(200);
    expect(outcomes(response.body.data.results)).toEqual(Array(6).fill("updated"));
    expect((await api.get(`/v1/projects/${p}`)).body.data.code).toBe(c);
    expect((await api.get(`/v1/projects/${q}`)).body.data.code).toBe(b);
    // An upsert that gives a code up and a create that takes it, in one batch.
    const d = code("D");
    const upserts = await api.post("/v1/projects/batch", {
      on_conflict: "update",
      items: [
        { name: "Hand Q", external_id: `hand-${q}` },
        { name: "Hand R", code: d, external_id: `hand-r-${q}` },
      ],
    });
    expect(outcomes(upserts.body.data.results)).toEqual(["created", "created"]);
    const r = upserts.body.data.results[1].id;
    const handOn = await api.post("/v1/projects/batch", {
      on_conflict: "update",
      items: [
        { name: "Hand R", code: code("E"), external_id: `hand-r-${q}` },
        { name: "Hand S", code: d, external_id: `hand-s-${q}` },
      ],
    });
    expect(outcomes(handOn.body.data.results)).toEqual(["updated", "created"]);
    expect((await api.get(`/v1/projects/${r}`)).body.data.code).not.toBe(d);
  });

  test("atomic: one refused item refuses the batch and nothing is written", async () => {
    const [a, b] = await workers(2, "Atomic upd");
    const before = await events("worker.updated");
    const response = await api.post("/v1/workers/batch", {
      operation: "update",
      atomic: true,
      items: [
        { id: a, name: "Atomic changed" },
        { id: b, email: "not-an-email" },
      ],
    });
    expect(response.status).toBe(422);
    expect(response.body.code).toBe("batch_failed");
    expect(outcomes(response.body.data.results)).toEqual(["updated", "validation_failed"]);
    expect(response.body.data.updated).toBe(0);
    expect((await api.get(`/v1/workers/${a}`)).body.data.name).toBe("Atomic upd 0");
    expect(await events("worker.updated")).toBe(before);
  });

  test("a dry-run answers exactly what the real run then does, and writes nothing", async () => {
    const [a, b, c] = await workers(3, "Dry upd");
    const stale = (await api.get(`/v1/workers/${c}`)).headers.get("etag")!;
    await api.patch(`/v1/workers/${c}`, { phone: "+1 555 0123" });
    const body = {
      operation: "update",
      items: [
        { id: a, name: "Dry renamed" },
        { id: b, name: "Dry upd 1" },
        { id: c, if_match: stale, name: "Dry stale" },
        { id: 999_999_999, name: "Dry nobody" },
        { id: a, hourly_rate: "-1" },
        { id: a, name: "Dry renamed" },
      ],
    };
    const before = await events("worker.updated");
    const dry = await api.post("/v1/workers/batch?dry_run=1", body);
    expect(dry.body.data.dry_run).toBe(true);
    expect((await api.get(`/v1/workers/${a}`)).body.data.name).toBe("Dry upd 0");
    expect(await events("worker.updated")).toBe(before);
    const real = await api.post("/v1/workers/batch", body);
    expect(outcomes(real.body.data.results)).toEqual([
      "updated",
      "unchanged",
      "precondition_failed",
      "not_found",
      "validation_failed",
      "unchanged",
    ]);
    // Each answer's problems name their own request.
    const comparable = (data: unknown) =>
      JSON.parse(JSON.stringify(data).replace(/"request_id":"[^"]*"/g, '"request_id":""'));
    expect(comparable({ ...dry.body.data, dry_run: false })).toEqual(comparable(real.body.data));
    expect(await events("worker.updated")).toBe(before + 1);
  });

  test(
    "item keys: an update runs once per key; the same item again is replayed, another under " +
      "its key refused",
    async () => {
      const [a, b] = await workers(2, "Keyed upd");
      const keys = [`upd-${crypto.randomUUID()}`, `upd-${crypto.randomUUID()}`];
      const body = {
        operation: "update",
        items: [
          { id: a, hourly_rate: "50.00" },
          { id: b, hourly_rate: "40.00" },
        ],
        item_keys: keys,
      };
      const before = await events("worker.updated");
      const first = await api.post("/v1/workers/batch", body);
      expect(outcomes(first.body.data.results)).toEqual(["updated", "unchanged"]);
      // Someone changes the record in between: the replay still writes nothing.
      await api.patch(`/v1/workers/${a}`, { hourly_rate: "55.00" });
      const again = await api.post("/v1/workers/batch", {
        ...body,
        items: [body.items[1], body.items[0]],
        item_keys: [keys[1], keys[0]],
      });
      expect(again.body.data.results).toEqual([
        { index: 0, status: 200, id: b, action: "unchanged", replayed: true },
        { index: 1, status: 200, id: a, action: "updated", replayed: true },
      ]);
      expect(again.body.data.updated).toBe(0);
      expect((await api.get(`/v1/workers/${a}`)).body.data.hourly_rate).toBe("55.00");
      expect(await events("worker.updated")).toBe(before + 2);
      const reused = await api.post("/v1/workers/batch", {
        operation: "update",
        items: [{ id: a, hourly_rate: "60.00" }],
        item_keys: [keys[0]],
      });
      expect(outcomes(reused.body.data.results)).toEqual(["idempotency_key_reuse"]);
      // The same body as a create is another item: its key does not replay the update.
      const asCreate = await api.post("/v1/workers/batch", {
        items: [{ name: "Keyed create" }],
        item_keys: [keys[1]],
      });
      expect(outcomes(asCreate.body.data.results)).toEqual(["idempotency_key_reuse"]);
    },
  );

  test("one Idempotency-Key covers an update batch: a retry replays it", async () => {
    const [a] = await workers(1, "Idem upd");
    const headers = { "idempotency-key": `upd-batch-${crypto.randomUUID()}` };
    const body = { operation: "update", items: [{ id: a, name: "Idem renamed" }] };
    const first = await api.post("/v1/workers/batch", body, { headers });
    await api.patch(`/v1/workers/${a}`, { name: "Changed since" });
    const again = await api.post("/v1/workers/batch", body, { headers });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect((await api.get(`/v1/workers/${a}`)).body.data.name).toBe("Changed since");
  });

  test("the envelope: operation create or update; on_conflict belongs to creates", async () => {
    const [a] = await workers(1, "Envelope upd");
    const bad = await api.post("/v1/workers/batch", {
      operation: "delete",
      items: [{ id: a }],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(["operation"]);
    const mixed = await api.post("/v1/workers/batch", {
      operation: "update",
      on_conflict: "update",
      items: [{ id: a }],
    });
    expect(mixed.body.errors.map((e: { field: string }) => e.field)).toEqual(["on_conflict"]);
    // A create batch still refuses an id: it is read-only there.
    const create = await api.post("/v1/workers/batch", { items: [{ id: a, name: "x" }] });
    expect(outcomes(create.body.data.results)).toEqual(["validation_failed"]);
  });
});
