// Batch item keys (docs/writes-and-retries.md): each item runs at most once per key, across batches of any
// composition; a bound key answers its stored result, another item under it is refused, refusals
// and dry-runs bind nothing. Keys are taken to be new and checked at commit (a bound one fails it
// and the batch runs again with the keys read), so these tests also pin down that second path.
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

interface Result {
  index: number;
  status: number;
  id: number | null;
  action?: string;
  replayed?: true;
  error?: { code: string };
}

const unique = (): string => crypto.randomUUID().slice(0, 8);

async function batch(
  path: string,
  body: Record<string, unknown>,
  client = api,
): Promise<{
  status: number;
  data: { created: number; updated: number; failed: number; results: Result[] };
  code?: string;
}> {
  const response = await client.post(path, body);
  return { status: response.status, data: response.body.data, code: response.body.code };
}

async function count(table: string, where: string, ...values: unknown[]): Promise<number> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    `SELECT COUNT(*) AS n FROM ${table} WHERE company_id = ? AND ${where}`,
    [companyId, ...values],
  );
  return Number(rows[0]!.n);
}

describe("batch item keys", () => {
  test(
    "an item runs once per key whatever the batch around it: bound items answer their stored " +
      "result, new ones are written",
    async () => {
      const run = unique();
      const items = ["A", "B", "C"].map((name) => ({ name: `${run} ${name}` }));
      const keys = items.map((_, i) => `${run}-${i}`);
      const first = await batch("/v1/clients/batch", { items, item_keys: keys });
      expect(first.data.results.map((r) => [r.status, r.action, r.replayed])).toEqual([
        [201, "created", undefined],
        [201, "created", undefined],
        [201, "created", undefined],
      ]);

      const again = await batch("/v1/clients/batch", {
        items: [items[1], { name: `${run} D` }, items[0]],
        item_keys: [keys[1], `${run}-3`, keys[0]],
      });
      expect(again.status).toBe(200);
      expect(again.data).toMatchObject({ created: 1, failed: 0 });
      expect(again.data.results.map((r) => [r.index, r.status, r.replayed ?? false])).toEqual([
        [0, 201, true],
        [1, 201, false],
        [2, 201, true],
      ]);
      expect(again.data.results[0]!.id).toBe(first.data.results[1]!.id);
      expect(again.data.results[2]!.id).toBe(first.data.results[0]!.id);
      expect(await count("clients", "name LIKE ?", `${run} %`)).toBe(4);
      expect(
        await count(
          "events",
          "type = 'client.created' AND record_id IN (?)",
          first.data.results.map((r) => r.id),
        ),
      ).toBe(3);
    },
  );

  test(
    "a bound item that would now be refused (its unique code is taken, by itself) still " +
      "answers its stored result",
    async () => {
      const code = `IK-${unique()}`;
      const item = { name: "Keyed project", code };
      const first = await batch("/v1/projects/batch", {
        items: [item],
        item_keys: [`${code}-key`],
      });
      expect(first.data.results[0]).toMatchObject({ status: 201, action: "created" });

      const unkeyed = await batch("/v1/projects/batch", { items: [item] });
      expect(unkeyed.data.results[0]).toMatchObject({
        status: 409,
        error: { code: "unique_violation" },
      });

      const again = await batch("/v1/projects/batch", {
        atomic: true,
        items: [item, { name: "Beside it" }],
        item_keys: [`${code}-key`, `${code}-other`],
      });
      expect(again.status).toBe(200);
      expect(again.data.results.map((r) => [r.status, r.replayed ?? false])).toEqual([
        [201, true],
        [201, false],
      ]);
      expect(again.data.results[0]!.id).toBe(first.data.results[0]!.id);
      expect(await count("projects", "code = ?", code)).toBe(1);
    },
  );

  test(
    "another item under a bound key is that item's 409 idempotency_key_reuse; on_conflict is " +
      "part of the item; the rest are written",
    async () => {
      const run = unique();
      await batch("/v1/workers/batch", {
        items: [{ name: `${run} first`, external_id: `${run}-x` }],
        item_keys: [`${run}-k`],
      });
      const other = await batch("/v1/workers/batch", {
        items: [{ name: `${run} changed`, external_id: `${run}-x` }, { name: `${run} new` }],
        item_keys: [`${run}-k`, `${run}-n`],
      });
      expect(other.data.results.map((r) => [r.status, r.error?.code])).toEqual([
        [409, "idempotency_key_reuse"],
        [201, undefined],
      ]);
      const upsert = await batch("/v1/workers/batch", {
        on_conflict: "update",
        items: [{ name: `${run} first`, external_id: `${run}-x` }],
        item_keys: [`${run}-k`],
      });
      expect(upsert.data.results[0]).toMatchObject({
        status: 409,
        error: { code: "idempotency_key_reuse" },
      });
      expect(await count("workers", "name LIKE ?", `${run} %`)).toBe(2);
    },
  );

  test("refused items bind nothing: the fixed item under the same key is written", async () => {
    const run = unique();
    const refused = await batch("/v1/workers/batch", {
      items: [{ name: `${run} W`, email: "not-an-email" }],
      item_keys: [`${run}-k`],
    });
    expect(refused.data.results[0]).toMatchObject({
      status: 422,
      error: { code: "validation_failed" },
    });
    const atomic = await batch("/v1/workers/batch", {
      atomic: true,
      items: [{ name: `${run} V` }, { name: "" }],
      item_keys: [`${run}-v`, `${run}-empty`],
    });
    expect(atomic).toMatchObject({ status: 422, code: "batch_failed" });
    const fixed = await batch("/v1/workers/batch", {
      items: [{ name: `${run} W`, email: "w@example.com" }, { name: `${run} V` }],
      item_keys: [`${run}-k`, `${run}-v`],
    });
    expect(fixed.data.results.map((r) => [r.status, r.replayed ?? false])).toEqual([
      [201, false],
      [201, false],
    ]);
    expect(
      await count("batch_item_keys", "item_key IN (?)", [`${run}-k`, `${run}-v`, `${run}-empty`]),
    ).toBe(2);
  });

  test("a dry-run binds nothing and shows a bound item as its stored result", async () => {
    const run = unique();
    const item = { name: `${run} previewed` };
    const dry = await batch("/v1/clients/batch?dry_run=true", {
      items: [item],
      item_keys: [`${run}-k`],
    });
    expect(dry.data.results[0]).toMatchObject({ status: 201, id: null });
    expect(dry.data.results[0]!.replayed).toBeUndefined();
    const real = await batch("/v1/clients/batch", { items: [item], item_keys: [`${run}-k`] });
    expect(real.data.results[0]!.replayed).toBeUndefined();
    const dryAgain = await batch("/v1/clients/batch?dry_run=true", {
      items: [item, { name: `${run} new` }],
      item_keys: [`${run}-k`, `${run}-n`],
    });
    expect(dryAgain.data.results.map((r) => [r.status, r.id, r.replayed ?? false])).toEqual([
      [201, real.data.results[0]!.id, true],
      [201, null, false],
    ]);
    expect(await count("clients", "name LIKE ?", `${run} %`)).toBe(1);
  });

  test("keys are the company's own: another company's batch under the same keys writes its own records", async () => {
    const run = unique();
    const body = { items: [{ name: `${run} shared` }], item_keys: [`${run}-k`] };
    const mine = await batch("/v1/clients/batch", body);
    const other = suite.api.as((await newCompany()).token);
    const theirs = await batch("/v1/clients/batch", body, other);
    expect(theirs.data.results[0]!.replayed).toBeUndefined();
    expect(theirs.data.results[0]!.id).not.toBe(mine.data.results[0]!.id);
  });

  test("batches racing over the same keys, in other orders, write each item once and agree on its id", async () => {
    const run = unique();
    const items = Array.from({ length: 60 }, (_, i) => ({
      name: `${run} ${i}`,
      email: `${run}-${i}@example.com`,
    }));
    const keys = items.map((_, i) => `${run}-${i}`);
    const order = (shift: number): number[] => items.map((_, i) => (i * 7 + shift) % items.length);
    const answers = await Promise.all(
      [0, 11, 23, 37, 51].map((shift) => {
        const positions = order(shift);
        return batch("/v1/workers/batch", {
          items: positions.map((i) => items[i]),
          item_keys: positions.map((i) => keys[i]),
        }).then((answer) => ({ positions, answer }));
      }),
    );
    const idOf = new Map<number, number>();
    for (const { positions, answer } of answers) {
      expect(answer.status).toBe(200);
      for (const result of answer.data.results) {
        expect(result.status).toBe(201);
        const item = positions[result.index]!;
        if (!idOf.has(item)) idOf.set(item, result.id!);
        expect(result.id).toBe(idOf.get(item)!);
      }
    }
    expect(answers.reduce((sum, { answer }) => sum + answer.data.created, 0)).toBe(60);
    expect(await count("workers", "name LIKE ?", `${run} %`)).toBe(60);
  });

  test("an upsert's key replays what it did the first time, without undoing a later change", async () => {
    const run = unique();
    const item = { name: `${run} Ann`, external_id: `${run}-hr` };
    const first = await batch("/v1/workers/batch", {
      on_conflict: "update",
      items: [item],
      item_keys: [`${run}-k`],
    });
    const id = first.data.results[0]!.id!;
    expect((await api.patch(`/v1/workers/${id}`, { name: `${run} Ann Smith` })).status).toBe(200);
    const again = await batch("/v1/workers/batch", {
      on_conflict: "update",
      items: [item],
      item_keys: [`${run}-k`],
    });
    expect(again.data.results[0]).toMatchObject({
      status: 201,
      id,
      action: "created",
      replayed: true,
    });
    expect((await api.get(`/v1/workers/${id}`)).body.data.name).toBe(`${run} Ann Smith`);
  });

  test("after 24 h a key is free again: the item is written anew", async () => {
    const run = unique();
    const body = { items: [{ name: `${run} old` }], item_keys: [`${run}-k`] };
    const first = await batch("/v1/clients/batch", body);
    await testDb().pool.query(
      "UPDATE batch_item_keys SET created_at = NOW(3) - INTERVAL 25 HOUR WHERE company_id = ? AND item_key = ?",
      [companyId, `${run}-k`],
    );
    const later = await batch("/v1/clients/batch", body);
    expect(later.data.results[0]).toMatchObject({ status: 201, action: "created" });
    expect(later.data.results[0]!.replayed).toBeUndefined();
    expect(later.data.results[0]!.id).not.toBe(first.data.results[0]!.id);
    const third = await batch("/v1/clients/batch", body);
    expect(third.data.results[0]).toMatchObject({ id: later.data.results[0]!.id, replayed: true });
  });

  test(
    "item_keys are checked with the envelope: one per item, unique, 1-255 printable ASCII; " +
      "nothing is written",
    async () => {
      const run = unique();
      const items = [{ name: `${run} 1` }, { name: `${run} 2` }];
      for (const item_keys of [
        ["only-one"],
        ["same", "same"],
        ["ok", "naïve"],
        ["ok", ""],
        "not-an-array",
      ]) {
        const answer = await api.post("/v1/clients/batch", { items, item_keys });
        expect(answer.status).toBe(422);
        expect(answer.body.errors).toContainEqual(expect.objectContaining({ field: "item_keys" }));
      }
      expect(await count("clients", "name LIKE ?", `${run} %`)).toBe(0);
    },
  );
});
