// Sorted lists: every sortable field of every collection, both directions, paged on after cursors
// (limit 7) through records with ties and nulls while other records are created, renamed and
// deleted; every record that existed throughout is seen exactly once, and the pages come in order.
import { beforeAll, describe, expect, test } from "bun:test";
import type { Api, ApiResponse } from "@erp/testing/api";
import type { RowDataPacket } from "mysql2";
import { COLLECTION_PATHS } from "@erp/testing/collections";
import { newCompany, testDb } from "@erp/testing/company";
import { SAMPLES } from "@erp/testing/samples";
import { definitionNamed, LOOKUPS, RESOURCES, SUB_RESOURCES } from "@erp/server/registry";
import { useServer } from "@erp/testing/suite";
import { uniqueFields } from "@erp/server/fields";
import { ErpClient } from "../sdk/mod.ts";

const suite = useServer();
type Row = Record<string, unknown> & { id: number };
type Json = Record<string, any>;

let api: Api;
let token: string;
let document: Json;

type Definition = ReturnType<typeof definitionNamed>;
type Field = Definition["fields"][string];

const DATES = ["2024-01-15", "2024-06-01", "2024-06-01", "2025-02-28"];
/** Dates after every one of DATES: a field that may not be before another (end_date) takes these. */
const LATER_DATES = ["2026-01-01", "2026-03-01", "2026-01-01"];

/**
 * Values with ties (and nulls, where the field takes null) for a field, by its kind: a field a
 * definition gains is sorted here without an edit. Strings in one case and shape, so any collation
 * orders them alike; references from `refs`, the ids of records of each collection.
 */
function poolOf(spec: Field, refs: Record<string, number[]>): unknown[] {
  const values = ((): unknown[] => {
    switch (spec.type) {
      case "text":
        return ["DELTA", "ALPHA", "BRAVO", "ALPHA", "CHARLIE", "BRAVO"];
      case "email":
        return ["b@example.com", "a@example.com", "b@example.com"];
      case "money":
        return ["10.00", "9.50", "100.00", "10.00"];
      case "date":
        return spec.notBefore ? LATER_DATES : DATES;
      case "enum":
        return [...spec.values, spec.values[1] ?? spec.values[0]];
      case "currency":
        return ["USD", "EUR", "USD"];
      case "boolean":
        return [false, true, false];
      case "ref":
        return refs[refKey(spec)]!;
      case "custom":
        return [{}];
    }
  })();
  return spec.nullable ? [null, ...values] : values;
}

/**
 * A required unique name (a lookup's, unique ignoring case) from its pool: capitalised like the
 * seeded names it is listed with (`Alpha 003`), so any collation orders them alike.
 */
const uniqueName = (value: unknown, n: number): string =>
  `${String(value)[0]}${String(value).slice(1).toLowerCase()} ${String(n).padStart(3, "0")}`;

/** Whether a collection's names are unique: a lookup's (its definition says so). */
const namesUnique = (path: string): boolean =>
  uniqueFields(definitionNamed(path.split("/").at(-1)!)).includes("name");

/** The n-th create body of a collection: each field from its pool, unique fields unique (or null). */
function bodyOf(
  def: Definition,
  schema: Json,
  refs: Record<string, number[]>,
  n: number,
  tag: string,
): Json {
  const body: Json = {};
  for (const [field, property] of Object.entries<Json>(schema.properties)) {
    const spec = def.fields[field];
    if (spec?.type === "text" && spec.unique && schema.required?.includes(field)) {
      const pool = poolOf(spec, refs);
      body[field] = uniqueName(pool[n % pool.length], n);
    } else if (spec?.type === "text" && spec.unique)
      body[field] = n % 4 === 3 ? null : `U${tag}${String(n).padStart(3, "0")}`;
    else if (field === "status") body[field] = property.enum[n % property.enum.length];
    else if (spec) {
      const pool = poolOf(spec, refs);
      body[field] = pool[n % pool.length];
    }
    if (body[field] === null && schema.required?.includes(field))
      body[field] = poolOf(spec!, refs)[1];
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

const sampleOf = (resource: string) => SAMPLES.find((sample) => sample.resource === resource)!;

/** The statuses a record goes through from its first to `status`, by the definition's transitions. */
function pathTo(def: Definition, status: string): string[] {
  const start = def.status!.initial[0]!;
  const before = new Map<string, string>([[start, start]]);
  const queue = [start];
  while (queue.length > 0 && !before.has(status)) {
    const at = queue.shift()!;
    for (const next of def.status!.transitions?.[at] ?? def.status!.values)
      if (!before.has(next)) {
        before.set(next, at);
        queue.push(next);
      }
  }
  const steps: string[] = [];
  for (let at = status; at !== start; at = before.get(at)!) steps.unshift(at);
  return steps;
}

/** Where the records a reference may name are kept in `refs`: by collection, and the status it needs. */
const refKey = (spec: Field & { type: "ref" }): string =>
  spec.requiredStatus ? `${spec.target.name}:${spec.requiredStatus}` : spec.target.name;

/**
 * Two records of each collection a field references: a lookup's seeded ones, the others made from
 * their samples, with references of their own (a project's client), and moved to the status the
 * reference needs (a project's budget estimate is CONVERTED).
 */
async function referencedRecords(
  made: (path: string, body: Json) => Promise<number>,
): Promise<Record<string, number[]>> {
  const wanted = new Map<string, Field & { type: "ref" }>();
  for (const def of [...RESOURCES, ...SUB_RESOURCES, ...LOOKUPS])
    for (const spec of Object.values(def.fields))
      if (spec.type === "ref") wanted.set(refKey(spec), spec);
  const refs: Record<string, number[]> = {};
  const ready = (spec: Field & { type: "ref" }) =>
    Object.values(spec.target.fields).every(
      (field) => field.type !== "ref" || refs[refKey(field)] !== undefined,
    );
  while (wanted.size > 0) {
    const [key, spec] = [...wanted].find(([, spec]) => ready(spec)) ?? [...wanted][0]!;
    wanted.delete(key);
    const target = spec.target;
    const path = `/v1/${target.name}`;
    if (target.lookup?.seed) {
      const seeded = (await api.get(`${path}?limit=2`)).body.data as Row[];
      refs[key] = seeded.map((row) => row.id);
      continue;
    }
    const body = (n: number): Json => ({
      ...sampleOf(target.name).create,
      ...Object.fromEntries(
        Object.entries(target.fields).flatMap(([field, own]) =>
          own.type === "ref" && refs[refKey(own)] ? [[field, refs[refKey(own)]![n]]] : [],
        ),
      ),
    });
    const ids = [await made(path, body(0)), await made(path, body(1))];
    for (const id of ids)
      for (const status of spec.requiredStatus ? pathTo(target, spec.requiredStatus) : []) {
        const moved = await api.patch(`${path}/${id}`, { status });
        expect(moved.status, moved.text).toBe(200);
      }
    refs[key] = ids;
  }
  return refs;
}

const collections: Record<string, Collection> = {};

beforeAll(async () => {
  const company = await newCompany();
  token = company.token;
  api = suite.api.as(token);
  document = (await api.get("/v1/openapi.json")).body;
  const made = async (path: string, body: Json) => {
    const response = await api.post(path, body);
    expect(response.status, response.text).toBe(201);
    return response.body.data.id as number;
  };
  const refs = await referencedRecords(made);
  // The parent of each sub-collection: one record made from its sample.
  const parents = new Map<string, number>();
  for (const [path, item] of Object.entries<Json>(document.paths)) {
    const list = item.get?.parameters?.find((p: Json) => p.name === "sort");
    if (!list) continue;
    const [, , parent, member, name] = path.split("/") as string[];
    if (member === "{id}" && !parents.has(parent!))
      parents.set(parent!, await made(`/v1/${parent}`, sampleOf(parent!).create));
    const def = definitionNamed(name ?? parent!);
    const schema = item.post?.requestBody?.content["application/json"].schema;
    const create = schema?.$ref
      ? document.components.schemas[schema.$ref.split("/").at(-1)]
      : undefined;
    const concrete = path.replace("{id}", String(parents.get(parent!)));
    collections[concrete] = {
      path: concrete,
      batch: Boolean(document.paths[`${path}/batch`]),
      sortable: (list.schema.items.enum as string[]).filter((value) => !value.startsWith("-")),
      create: create && ((n) => bodyOf(def, create, refs, n, concrete.length.toString(36))),
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
    // Every collection of the API: the records', their sub-collections' and the lookups'.
    const paths = Object.keys(collections).map((path) => path.replace(/\/\d+\//, "/{id}/"));
    expect(paths.sort()).toEqual([...COLLECTION_PATHS].sort());
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
            [title]: namesUnique(collection.path) ? uniqueName("ECHO", written) : "ECHO",
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
              `${collection.path} sort=${sort}: ` +
                `${JSON.stringify([rows[i - 1]![field], rows[i - 1]!.id])} before ` +
                `${JSON.stringify([rows[i]![field], rows[i]!.id])}`,
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

describe("filters", () => {
  const NOT_FILTERS = new Set([
    ...["limit", "offset", "after_id", "after", "total", "fields", "expand", "sort", "q"],
    ...["updated_since", "include_deleted"],
  ]);
  /** Every record of a (filtered) list, in id order, page by page on after_id. */
  const everyRow = async (path: string, query = ""): Promise<Row[]> => {
    const rows: Row[] = [];
    for (let after: number | undefined = 0; after !== undefined; ) {
      const page: ApiResponse = await api.get(`${path}?${query}&limit=100&after_id=${after}`);
      expect(page.status, `${path}?${query}: ${page.text}`).toBe(200);
      rows.push(...page.body.data);
      after = page.body.meta.next_after_id;
    }
    return rows;
  };
  const idsOf = async (path: string, query: string): Promise<number[]> =>
    (await everyRow(path, query)).map((row) => row.id);
  const parametersOf = (path: string): Json[] =>
    document.paths[path.replace(/equipment\/\d+/, "equipment/{id}")].get.parameters.filter(
      (p: Json) => p.in === "query" && !NOT_FILTERS.has(p.name),
    );

  test("every equality filter (a comma means any of) and every range, against the records", async () => {
    let checked = 0;
    for (const collection of Object.values(collections)) {
      const rows = await everyRow(collection.path);
      for (const parameter of parametersOf(collection.path)) {
        const field = parameter.name as string;
        const present = [...new Set(rows.map((row) => row[field]).filter((v) => v !== null))];
        if (parameter.style === "deepObject") {
          const kind = parameter.schema.properties.gte;
          const sortedValues = present.sort(compareField);
          const bound = sortedValues[Math.floor(sortedValues.length / 2)] as string;
          // A timestamp's bound may be a date (its midnight UTC) or the moment itself.
          const bounds = kind.anyOf ? [bound, bound.slice(0, 10)] : [bound];
          for (const value of bounds) {
            const at = kind.anyOf
              ? new Date(value.length === 10 ? `${value}T00:00:00Z` : value)
              : value;
            for (const [op, holds] of Object.entries({
              gte: (c: number) => c >= 0,
              gt: (c: number) => c > 0,
              lt: (c: number) => c < 0,
              lte: (c: number) => c <= 0,
            })) {
              const expected = rows
                .filter((row) => {
                  const own = row[field];
                  if (own === null) return false;
                  const c = kind.anyOf
                    ? new Date(own as string).getTime() - (at as Date).getTime()
                    : compareField(own, at);
                  return holds(c);
                })
                .map((row) => row.id);
              const query = `${field}[${op}]=${encodeURIComponent(value)}`;
              expect(await idsOf(collection.path, query), `${collection.path}?${query}`).toEqual(
                expected,
              );
              checked++;
            }
          }
          // Two bounds together: both hold.
          const both = await idsOf(
            collection.path,
            `${field}[gte]=${encodeURIComponent(sortedValues[0] as string)}&${field}[lt]=${encodeURIComponent(bound)}`,
          );
          expect(both.length).toBeLessThan(rows.length);
          continue;
        }
        const choices =
          parameter.schema.type === "array"
            ? [present.slice(0, 1), present.slice(0, 2)]
            : present.slice(0, 2);
        for (const choice of choices) {
          const wanted = Array.isArray(choice) ? choice : [choice];
          const expected = rows.filter((row) => wanted.includes(row[field])).map((row) => row.id);
          const query = `${field}=${encodeURIComponent(wanted.join(","))}`;
          expect(await idsOf(collection.path, query), `${collection.path}?${query}`).toEqual(
            expected,
          );
          if (expected.length > 0) checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(200);
  }, 60_000);

  test("a bad filter value or range is 400 invalid_query naming the parameter", async () => {
    for (const [query, named] of [
      ["hired_on[gte]=2024-02-30", "hired_on[gte]"],
      ["hired_on[gte]=yesterday", "hired_on[gte]"],
      ["hired_on[after]=2024-01-01", "hired_on[gte], hired_on[gt], hired_on[lt], hired_on[lte]"],
      ["hired_on=2024-01-01", "hired_on[gte]"],
      ["hourly_rate[gt]=12.345", "hourly_rate[gt]"],
      ["updated_at[lt]=2026-13-01", "updated_at[lt]"],
      ["updated_since=last week", "updated_since"],
      ["status=ACTIVE,RETIRED", "status"],
      ["trade_id=abc", "trade_id"],
      ["name[gte]=A", "name[gte]"],
    ]) {
      const refused = await api.get(`/v1/workers?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.code, query).toBe("invalid_query");
      expect(refused.body.detail, query).toContain(named!);
    }
    // A plain date is a moment too: its midnight UTC.
    expect((await api.get("/v1/workers?updated_since=2026-01-01")).status).toBe(200);
    expect(
      (await api.get("/v1/projects?billing_mode=cost_plus,fixed_price&currency=usd")).status,
    ).toBe(200);
  });
});

describe("expand", () => {
  /** Statements the database ran for one request (its global counter: others' statements only add). */
  async function statementsOf(path: string): Promise<number> {
    const questions = async () => {
      const [rows] = await testDb().pool.query<RowDataPacket[]>(
        "SHOW GLOBAL STATUS LIKE 'Questions'",
      );
      return Number(rows[0]!.Value);
    };
    const before = await questions();
    expect((await api.get(path)).status).toBe(200);
    return (await questions()) - before;
  }

  /**
   * The least each of two requests cost over alternating tries: other clients of the database only
   * add to a try, so the least settles on what the request itself costs.
   */
  async function leastStatements(a: string, b: string): Promise<[number, number]> {
    let least: [number, number] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
    for (let round = 0; round < 60; round++) {
      least = [
        Math.min(least[0], await statementsOf(a)),
        Math.min(least[1], await statementsOf(b)),
      ];
      if (round >= 5 && least[0] === least[1]) break;
    }
    return least;
  }

  test("embeds whole records, one or two levels, on lists and GET one; the ETag covers them", async () => {
    const clients = new Map(
      ((await api.get("/v1/clients?limit=100")).body.data as Row[]).map((row) => [row.id, row]),
    );
    const projects = await api.get("/v1/projects?expand=client&limit=100");
    expect(projects.status, projects.text).toBe(200);
    for (const project of projects.body.data as Row[])
      expect(project.client, `project ${project.id}`).toEqual(
        project.client_id === null ? null : clients.get(project.client_id as number),
      );
    // fields narrows the record, not what it embeds.
    const narrow = await api.get(
      `/v1/projects?expand=client&fields=name&limit=1&client_id=${[...clients.keys()][0]}`,
    );
    expect(Object.keys(narrow.body.data[0]).sort()).toEqual(["client", "id", "name"]);
    // Two levels: a rental's project with that project's client.
    const rentals = Object.keys(collections).find((path) => path.endsWith("/rentals"))!;
    const rental = (await api.get(`${rentals}?expand=project.client&limit=1`)).body.data[0] as Row;
    const project = (await api.get(`/v1/projects/${rental.project_id}?expand=client`)).body
      .data as Row;
    expect(rental.project).toEqual(project);
    expect((project.client as Row).id).toBe(project.client_id as number);
    // The SDK asks for the same embeds on lists and GET one (its types: sdk/type-errors.ts).
    const erp = new ErpClient({ baseUrl: suite.server.baseUrl, token });
    const viaSdk = await erp.equipment
      .rentals(rental.equipment_id as number)
      .list({ expand: ["project.client"], limit: 7 })
      .toArray();
    expect(viaSdk.find((one) => one.id === rental.id)?.project).toEqual(project as never);
    expect(await erp.projects.get(project.id, { expand: "client" })).toEqual(project as never);
    // A deleted reference is {id, deleted: true}; the ETag of the page follows the embedded record.
    const made = await api.post("/v1/clients", { name: "SOON GONE" });
    const owner = await api.post("/v1/projects", { name: "OWNED", client_id: made.body.data.id });
    const one = `/v1/projects/${owner.body.data.id}?expand=client`;
    const first = await api.get(one);
    expect((first.body.data.client as Row).name).toBe("SOON GONE");
    await api.patch(`/v1/clients/${made.body.data.id}`, { name: "RENAMED" });
    const renamed = await api.get(one, {
      headers: { "if-none-match": first.headers.get("etag")! },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.client.name).toBe("RENAMED");
    expect((await api.delete(`/v1/clients/${made.body.data.id}`)).status).toBe(200);
    expect((await api.get(one)).body.data.client).toEqual({ id: made.body.data.id, deleted: true });
    expect((await api.get(`/v1/projects/${owner.body.data.id}`)).body.data.client).toBeUndefined();
  });

  test("an unknown or three-level expand is 400 invalid_query naming what expands", async () => {
    const unknown = await api.get("/v1/projects?expand=owner");
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toContain(
      "Expandable: client, budget_estimate, budget_estimate.client.",
    );
    const rentals = Object.keys(collections).find((path) => path.endsWith("/rentals"))!;
    const deep = await api.get(`${rentals}?expand=project.client.x`);
    expect(deep.status).toBe(400);
    expect(deep.body.detail).toContain("two levels deep at most");
    expect((await api.get("/v1/trades?expand=client")).status).toBe(400);
  });

  test("a page's statements do not grow with its limit", async () => {
    const client = (await api.get("/v1/clients?limit=1")).body.data[0].id as number;
    const more = await api.post("/v1/projects/batch", {
      items: Array.from({ length: 100 }, (_, n) => ({
        name: `MANY ${n}`,
        client_id: n % 2 ? client : null,
      })),
    });
    expect(more.status).toBe(200);
    const rentals = Object.keys(collections).find((path) => path.endsWith("/rentals"))!;
    for (const [path, expand] of [
      ["/v1/projects", "client"],
      ["/v1/projects", "client,budget_estimate"],
      [rentals, "project.client"],
    ] as [string, string][]) {
      const [small, large] = await leastStatements(
        `${path}?expand=${expand}&limit=10&total=false`,
        `${path}?expand=${expand}&limit=100&total=false`,
      );
      expect(large, `${path}?expand=${expand}`).toBe(small);
      // The page, a rental's equipment check, one read per reference, and the counter's own SHOW.
      expect(small, `${path}?expand=${expand}`).toBeLessThanOrEqual(
        3 + expand.split(/[,.]/).length,
      );
    }
  });
});
