// Sorted lists' cursors are opaque to clients, not trusted by the server (docs/api.md): a cursor
// whose values do not fit the sort's fields (objects, arrays, nested arrays, wrong types, dates
// that do not exist, null for a field that is never null) is 400 invalid_query before anything
// reaches a statement, never a 500 and never a filter of another meaning; another company's
// cursor is 400 too. Every kind of sortable field is covered, as the registry declares them.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { recordFields, sortableFieldNames } from "@erp/server/fields";
import { ALL_DEFINITIONS } from "@erp/server/registry";
import type { Api } from "@erp/testing/api";
import { newCompany } from "@erp/testing/company";
import { ExampleRunner } from "@erp/testing/example-requests";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(120_000);

const suite = useServer();

type Json = Record<string, any>;
type Definition = (typeof ALL_DEFINITIONS)[number];

/** The kind of a sortable field: its type, or `id` and `timestamp` for the columns every record has. */
function kindOf(def: Definition, field: string): string {
  if (field === "id") return "id";
  if (field === "created_at" || field === "updated_at") return "timestamp";
  return recordFields(def).find(([name]) => name === field)![1].type;
}

/** The first field of each kind, in the registry's order: kind → its definition and field. */
function representatives(): Map<string, { def: Definition; field: string; nullable: boolean }> {
  const found = new Map<string, { def: Definition; field: string; nullable: boolean }>();
  for (const def of ALL_DEFINITIONS)
    for (const field of sortableFieldNames(def)) {
      const kind = kindOf(def, field);
      const spec = recordFields(def).find(([name]) => name === field)?.[1];
      if (!found.has(kind)) found.set(kind, { def, field, nullable: spec?.nullable ?? false });
    }
  return found;
}

const STRING_KINDS = ["text", "email", "enum", "currency", "money", "date", "timestamp"];

/** Values that fit no field of the kind: what a forged cursor may hold in place of a real one. */
function forgeries(kind: string, nullable: boolean): unknown[] {
  const shapes = [{}, { a: 1 }, { $gt: "" }, [1], ["a", "b"], [[1]], [[["x"]], 2], [null]];
  const wrong: Record<string, unknown[]> = {
    id: ["12", 1.5, -1, true, 2 ** 60],
    ref: ["12", 1.5, -1, false],
    boolean: ["true", 1, 0],
    text: [12345, true],
    email: [12345, false],
    enum: [7, "NOT_ONE_OF_THEM"],
    currency: [840, true],
    money: [12.5, "12.345", "1e3", "abc"],
    date: [20250101, "garbage", "2025-02-30", "2025-1-1", "2025-01-01T00:00:00Z"],
    timestamp: [1_700_000_000_000, "garbage", "2025-13-01T00:00:00.000Z", "2025-02-30T00:00:00Z"],
  };
  const tooLong = STRING_KINDS.includes(kind) && kind !== "timestamp" ? ["x".repeat(5_000)] : [];
  return [...shapes, ...(wrong[kind] ?? []), ...tooLong, ...(nullable ? [] : [null])];
}

const decode = (cursor: string): unknown[] =>
  JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString("base64url");

let document: Json;
const lists = new Map<Definition, { owner: string; stranger: string }>();
let owner: Api;
let stranger: Api;

/** Makes two records of `def` for `runner`'s company; answers the path of their list. */
async function listWithTwo(runner: ExampleRunner, def: Definition): Promise<string> {
  const collection = Object.keys(document.paths).find(
    (path) => path.split("/").at(-1) === def.name && document.paths[path].get,
  )!;
  if (document.paths[collection].post) {
    await runner.recordOf(collection, false);
    await runner.recordOf(collection, true);
  }
  return runner.fill(collection, document.paths[collection].get, false);
}

beforeAll(async () => {
  document = (await suite.api.get("/v1/openapi.json", { token: null })).body;
  owner = suite.api.as((await newCompany()).token);
  stranger = suite.api.as((await newCompany()).token);
  const ours = new ExampleRunner(document, owner, owner);
  const theirs = new ExampleRunner(document, stranger, stranger);
  for (const { def } of representatives().values())
    if (!lists.has(def))
      lists.set(def, {
        owner: await listWithTwo(ours, def),
        stranger: await listWithTwo(theirs, def),
      });
});

/** The next_cursor of the first page of `path` sorted by `sort`, one record a page. */
async function cursorOf(api: Api, path: string, sort: string): Promise<string> {
  const page = await api.get(`${path}?sort=${sort}&limit=1`);
  expect([path, sort, page.status]).toEqual([path, sort, 200]);
  const cursor = page.body.meta.next_cursor as string | undefined;
  if (!cursor) throw new Error(`${path}?sort=${sort}: no next_cursor (fewer than two records?)`);
  return cursor;
}

describe("forged cursors", () => {
  test("the registry's sortable fields come in every kind the suite forges for", () => {
    expect([...representatives().keys()].sort()).toEqual([
      "boolean",
      "currency",
      "date",
      "email",
      "enum",
      "id",
      "money",
      "ref",
      "text",
      "timestamp",
    ]);
  });

  test("on every sortable field kind, a cursor holding anything but such a value is 400 invalid_query; the real one pages", async () => {
    const failures: string[] = [];
    let forged = 0;
    for (const [kind, { def, field, nullable }] of representatives()) {
      const path = lists.get(def)!.owner;
      for (const sort of [field, `-${field}`]) {
        const real = await cursorOf(owner, path, sort);
        const [fingerprint, id, value] = decode(real);
        const next = await owner.get(`${path}?sort=${sort}&limit=1&after=${real}`);
        if (next.status !== 200) failures.push(`${kind} ${sort}: the real cursor → ${next.status}`);
        // A nullable field's cursor may hold null (a record without it): that one pages too.
        if (nullable) {
          const withNull = encode([fingerprint, id, null]);
          const answer = await owner.get(`${path}?sort=${sort}&limit=1&after=${withNull}`);
          if (answer.status !== 200)
            failures.push(`${kind} ${sort}: a null value → ${answer.status} ${answer.text}`);
        }
        const cursors = [
          ...forgeries(kind, nullable).map((bad) => [fingerprint, id, bad]),
          // The id that breaks ties is checked too.
          [fingerprint, { $gt: 0 }, value],
          [fingerprint, [id], value],
          [fingerprint, String(id), value],
          // Too few or too many values for the sort.
          [fingerprint, id],
          [fingerprint, id, value, value],
          // Not a cursor's shape at all.
          { after: id },
          [[fingerprint], id, value],
        ];
        for (const cursor of cursors) {
          forged += 1;
          const answer = await owner.get(`${path}?sort=${sort}&limit=1&after=${encode(cursor)}`);
          if (answer.status !== 400 || answer.body.code !== "invalid_query")
            failures.push(
              `${kind} ${path}?sort=${sort} after ${JSON.stringify(cursor).slice(0, 80)} → ` +
                `${answer.status} ${answer.text.slice(0, 120)}`,
            );
        }
      }
    }
    expect(failures).toEqual([]);
    expect(forged).toBeGreaterThan(200);
  });

  test("two sort keys: a forged second value is 400 as well", async () => {
    const { def } = representatives().get("text")!;
    const path = lists.get(def)!.owner;
    const sort = "name,-created_at";
    const [fingerprint, id, name] = decode(await cursorOf(owner, path, sort));
    for (const bad of [{}, [1], "garbage", 5])
      expect(
        (
          await owner.get(
            `${path}?sort=${sort}&limit=1&after=${encode([fingerprint, id, name, bad])}`,
          )
        ).status,
      ).toBe(400);
  });

  test("another company's cursor of the same list is 400: a cursor is bound to its company", async () => {
    for (const [kind, { def, field }] of representatives()) {
      const { owner: ours, stranger: theirs } = lists.get(def)!;
      const foreign = await cursorOf(stranger, theirs, field);
      const answer = await owner.get(`${ours}?sort=${field}&limit=1&after=${foreign}`);
      expect([kind, answer.status, answer.body.code]).toEqual([kind, 400, "invalid_query"]);
      expect(answer.body.detail).toContain("another company");
    }
  });
});
