// Sorted lists: every sortable field of every collection, both directions, paged on after cursors
// (limit 7) through records with ties and nulls while other records are created, renamed and
// deleted; every record that existed throughout is seen exactly once, and the pages come in order.
import { beforeAll, describe, expect, test } from "bun:test";
import type { Api } from "@erp/testing/api";
import { newCompany } from "@erp/testing/company";
import { useServer } from "@erp/testing/suite";
import { ErpClient } from "../sdk/mod.ts";

const suite = useServer();
type Row = Record<string, unknown> & { id: number };
type Json = Record<string, any>;

let api: Api;
let token: string;
let document: Json;

/** Values with ties and nulls per field; strings in one case and shape, so any collation orders them alike. */
function pools(refs: Record<string, number[]>): Record<string, unknown[]> {
  const dates = [null, "2024-01-15", "2024-06-01", "2024-06-01", "2025-02-28"];
  return {
    name: ["DELTA", "ALPHA", "BRAVO", "ALPHA", "CHARLIE", "BRAVO"],
    title: ["DELTA", "ALPHA", "BRAVO", "ALPHA"],
    email: [null, "b@example.com", "a@example.com", "b@example.com"],
    phone: [null, "555 0100", "555 0200"],
    tax_id: [null, "TX10", "TX20", "TX10"],
    billing_mode: ["FIXED_PRICE", "COST_PLUS", "TIME_AND_MATERIALS", "COST_PLUS"],
    budget_amount: [null, "10.00", "9.50", "100.00", "10.00"],
    amount: ["10.00", "9.50", "100.00", "10.00"],
    hourly_rate: [null, "25.00", "9.75", "25.00"],
    daily_rate: [null, "300.00", "45.50", "300.00"],
    currency: ["USD", "EUR", "USD"],
    start_date: dates,
    end_date: [null, "2026-01-01", "2026-03-01", "2026-01-01"],
    hired_on: dates,
    valid_until: dates,
    insurance_expires_on: dates,
    billed: [false, true, false],
    client_id: [null, ...refs.clients!],
    trade_id: [null, ...refs.trades!],
    category_id: [null, ...refs.categories!],
    project_id: refs.projects!,
  };
}

const UNIQUE = new Set(["code", "serial_number", "external_id"]);

/** The n-th create body of a collection: each field from its pool, unique fields unique (or null). */
function bodyOf(schema: Json, pool: Record<string, unknown[]>, n: number, tag: string): Json {
  const body: Json = {};
  for (const [field, property] of Object.entries<Json>(schema.properties)) {
    if (UNIQUE.has(field))
      body[field] = n % 4 === 3 ? null : `U${tag}${String(n).padStart(3, "0")}`;
    else if (field === "status") body[field] = property.enum[n % property.enum.length];
    else if (pool[field]) body[field] = pool[field]![n % pool[field]!.length];
    if (body[field] === null && schema.required?.includes(field)) body[field] = pool[field]![1];
  }
  return body;
}

/** MySQL's order of one field: NULL first; numbers, money and booleans by value; text as written. */
function compareField(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === "boolean") return Number(a) - Number(b);
  if (typeof a === "number") return a - (b as number);
  if (/^-?\d+\.\d{2}$/.test(String(a))) return Number(a) - Number(b);
  return String(a) < String(b) ? -1 : 1;
}

/** a before or alike b in the order `sort`, id breaking ties in the last key's direction. */
function ordered(sort: { field: string; descending: boolean }[], a: Row, b: Row): boolean {
  for (const key of sort) {
    const order = compareField(a[key.field], b[key.field]) * (key.descending ? -1 : 1);
    if (order !== 0) return order < 0;
  }
  return (sort.at(-1)?.descending ? b.id - a.id : a.id - b.id) < 0;
}

interface Collection {
  path: string;
  create?: (n: number) => Json;
  batch: boolean;
  sortable: string[];
}

/** Every page of `path?sort=…`, following meta.next_cursor; `writes` run while each later page is read. */
async function walk(path: string, sort: string, writes: () => Promise<void>): Promise<Row[]> {
  const rows: Row[] = [];
  let query = `sort=${sort}&limit=7`;
  for (let pages = 1; ; pages++) {
    const [page] = await Promise.all([api.get(`${path}?${query}`), pages > 1 && writes()]);
    expect(page.status, page.text).toBe(200);
    rows.push(...page.body.data);
    const next = page.body.meta.next_cursor;
    if (next === undefined) return rows;
    expect(page.body.data).toHaveLength(7);
    query = `sort=${sort}&limit=7&after=${encodeURIComponent(next)}`;
  }
}

const collections: Record<string, Collection> = {};

beforeAll(async () => {
  const company = await newCompany();
  token = company.token;
  api = suite.api.as(token);
  document = (await api.get("/v1/openapi.json")).body;
  const ids = async (path: string) =>
    ((await api.get(`${path}?limit=2`)).body.data as Row[]).map((row) => row.id);
  const made = async (path: string, body: Json) => {
    const response = await api.post(path, body);
    expect(response.status, response.text).toBe(201);
    return response.body.data.id as number;
  };
  const refs: Record<string, number[]> = {
    trades: await ids("/v1/trades"),
    categories: await ids("/v1/equipment-categories"),
    clients: [
      await made("/v1/clients", { name: "REF ONE" }),
      await made("/v1/clients", { name: "REF TWO" }),
    ],
  };
  refs.projects = [
    await made("/v1/projects", { name: "REF P1", client_id: refs.clients![0] }),
    await made("/v1/projects", { name: "REF P2", client_id: refs.clients![1] }),
  ];
  const equipment = await made("/v1/equipment", { name: "REF RIG" });
  const pool = pools(refs);
  for (const [path, item] of Object.entries<Json>(document.paths)) {
    const list = item.get?.parameters?.find((p: Json) => p.name === "sort");
    if (!list) continue;
    const schema = item.post?.requestBody?.content["application/json"].schema;
    const create = schema?.$ref
      ? document.components.schemas[schema.$ref.split("/").at(-1)]
      : undefined;
    const concrete = path.replace("{id}", String(equipment));
    collections[concrete] = {
      path: concrete,
      batch: Boolean(document.paths[`${path}/batch`]),
      sortable: (list.schema.items.enum as string[]).filter((value) => !value.startsWith("-")),
      create: create && ((n) => bodyOf(create, pool, n, concrete.length.toString(36))),
    };
  }
  // 20 records of each collection (refs above included), made at once so their timestamps tie too.
  for (const collection of Object.values(collections)) {
    if (!collection.create) continue;
    const bodies = Array.from({ length: 20 }, (_, n) => collection.create!(n));
    if (collection.batch) {
      const batch = await api.post(`${collection.path}/batch`, { items: bodies, atomic: true });
      expect(batch.status, batch.text).toBe(200);
    } else for (const body of bodies) await made(collection.path, body);
  }
}, 60_000);

describe("sort with after cursors", () => {
  test("every sortable field of every collection, both directions, while others write", async () => {
    // The record collections, rentals and both lookups.
    expect(Object.keys(collections)).toHaveLength(9);
    let written = 0;
    for (const collection of Object.values(collections)) {
      const before = (await api.get(`${collection.path}?limit=100`)).body.data as Row[];
      const throughout = new Set(before.map((row) => row.id));
      const extra: number[] = [];
      // While a page is read, one write in turn: a new record, a rename or a delete of one made meanwhile.
      const between = async () => {
        if (!collection.create) return;
        const turn = written++ % 3;
        const topLevel = collection.path.split("/").length === 3 && extra.length > 1;
        if (turn === 1 && topLevel) {
          const title = "title" in collection.create(0) ? "title" : "name";
          const renamed = await api.patch(`${collection.path}/${extra.at(-1)}`, {
            [title]: "ECHO",
          });
          expect(renamed.status, renamed.text).toBe(200);
        } else if (turn === 2 && topLevel) {
          const deleted = await api.delete(`${collection.path}/${extra.shift()}`);
          expect(deleted.status, deleted.text).toBe(200);
        } else {
          const created = await api.post(collection.path, collection.create(100 + written));
          expect(created.status, created.text).toBe(201);
          extra.push(created.body.data.id);
        }
      };
      for (const field of collection.sortable) {
        for (const sort of [field, `-${field}`]) {
          const keys = [{ field, descending: sort.startsWith("-") }];
          const rows = await walk(collection.path, sort, between);
          const seen = rows.map((row) => row.id).filter((id) => throughout.has(id));
          expect(new Set(seen).size, `${collection.path} ${sort}`).toBe(seen.length);
          expect(seen.length, `${collection.path} ${sort}`).toBe(throughout.size);
          for (let i = 1; i < rows.length; i++)
            expect(
              ordered(keys, rows[i - 1]!, rows[i]!),
              `${collection.path} sort=${sort}: ${JSON.stringify([rows[i - 1]![field], rows[i - 1]!.id])} before ${JSON.stringify([rows[i]![field], rows[i]!.id])}`,
            ).toBe(true);
        }
      }
    }
  }, 120_000);

  test("two keys: ties of the first are ordered by the second, then by id in the last key's direction", async () => {
    const sort = [
      { field: "name", descending: false },
      { field: "hired_on", descending: true },
    ];
    const rows = await walk("/v1/workers", "name,-hired_on", async () => {});
    const all = (await api.get("/v1/workers?limit=100")).body.data as Row[];
    expect(rows.map((row) => row.id)).toEqual(
      [...all].sort((a, b) => (ordered(sort, a, b) ? -1 : 1)).map((row) => row.id),
    );
    // The SDK's list() pages a sorted list on its cursors.
    const erp = new ErpClient({ baseUrl: suite.server.baseUrl, token });
    const listed = await erp.workers.list({ sort: ["name", "-hired_on"], limit: 7 }).toArray();
    expect(listed.map((row) => row.id)).toEqual(rows.map((row) => row.id));
    // With fields, the cursor still works: it is made of the sort keys, whatever is shown.
    const first = await api.get("/v1/workers?sort=name,-hired_on&limit=7&fields=email");
    expect(Object.keys(first.body.data[0]).sort()).toEqual(["email", "id"]);
    const second = await api.get(
      `/v1/workers?sort=name,-hired_on&limit=7&fields=email&after=${first.body.meta.next_cursor}`,
    );
    expect(second.body.data.map((row: Row) => row.id)).toEqual(
      rows.slice(7, 14).map((row) => row.id),
    );
    // An offset page of a sorted list is the same slice, and its cursor continues it.
    const offset = await api.get("/v1/workers?sort=name,-hired_on&limit=7&offset=7");
    expect(offset.body.meta).toMatchObject({ offset: 7, limit: 7 });
    expect(offset.body.data.map((row: Row) => row.id)).toEqual(
      rows.slice(7, 14).map((row) => row.id),
    );
    const third = await api.get(
      `/v1/workers?sort=name,-hired_on&limit=7&after=${offset.body.meta.next_cursor}`,
    );
    expect(third.body.data.map((row: Row) => row.id)).toEqual(
      rows.slice(14, 21).map((row) => row.id),
    );
  });

  test("an unknown or unsortable field, or a cursor of another list, is 400 invalid_query saying why", async () => {
    const unknown = await api.get("/v1/workers?sort=nme");
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe("invalid_query");
    expect(unknown.body.detail).toContain("Sortable fields: id, name, email, phone, trade_id");
    expect((await api.get("/v1/projects?sort=-address")).body.detail).toContain(
      '"address" cannot be sorted by',
    );
    expect((await api.get("/v1/clients?sort=name,-name")).status).toBe(400);
    expect((await api.get("/v1/clients?sort=")).status).toBe(400);
    const cursor = (await api.get("/v1/workers?sort=name&limit=2")).body.meta.next_cursor as string;
    expect(cursor).toBeString();
    for (const other of [
      `sort=-name&after=${cursor}`,
      `sort=email&after=${cursor}`,
      `sort=name&status=ACTIVE&after=${cursor}`,
      `sort=name&after=${cursor}&offset=2`,
      `sort=name&after_id=3`,
      "sort=name&after=bm90IGEgY3Vyc29y",
      "sort=name&after=%7B",
    ]) {
      const refused = await api.get(`/v1/workers?${other}`);
      expect(refused.status, other).toBe(400);
      expect(refused.body.code, other).toBe("invalid_query");
    }
    // The same list with another page size or other fields takes the cursor.
    expect(
      (await api.get(`/v1/workers?sort=name&limit=5&fields=name&after=${cursor}`)).status,
    ).toBe(200);
  });
});
