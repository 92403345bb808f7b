// Unique values (external_id, a project's code, an equipment's serial_number) compare exactly, on
// every write path and in dry-runs alike (docs/concepts.md): values that differ only in case,
// accents or which emoji are distinct; values that differ only in trailing spaces are the same
// value, so the second is 409 unique_violation everywhere. Never a 5xx.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Api, ApiResponse } from "@erp/testing/api";
import { newCompany } from "@erp/testing/company";
import { SAMPLES } from "@erp/testing/samples";
import { useServer } from "@erp/testing/suite";

const suite = useServer();
let api: Api;
/** Every answer of the file with a 5xx status: there must be none. */
const failures: string[] = [];

beforeAll(async () => {
  api = suite.api.as((await newCompany()).token);
});

afterAll(() => {
  expect(failures).toEqual([]);
});

/** Pairs of values and whether the database must hold them distinct. */
const PAIRS = [
  { name: "case", a: "abc", b: "ABC", distinct: true },
  { name: "accents", a: "cafe", b: "café", distinct: true },
  { name: "sharp s and s", a: "ß", b: "s", distinct: true },
  { name: "sharp s and ss", a: "maße", b: "masse", distinct: true },
  { name: "two emoji", a: "😀", b: "😁", distinct: true },
  { name: "trailing spaces", a: "abc", b: "abc  ", distinct: false },
] as const;
type Pair = (typeof PAIRS)[number];

/** Every unique field of every resource. */
const FIELDS = SAMPLES.flatMap((sample) => [
  { sample, field: "external_id" },
  ...(sample.resource === "projects" ? [{ sample, field: "code" }] : []),
  ...(sample.resource === "equipment" ? [{ sample, field: "serial_number" }] : []),
]);
type Field = (typeof FIELDS)[number];

let prefixes = 0;
/** A prefix that keeps one check's values apart from every other check's (codes are ≤ 32). */
const nextPrefix = (): string => `${(prefixes++).toString(36)}-`;

/** What an answer says, the same for a dry-run and a real write: created, updated, a refusal, or a batch's items. */
function outcome(what: string, response: ApiResponse): string {
  if (response.status >= 500) failures.push(`${what}: ${response.status} ${response.text}`);
  const results = response.body?.data?.results as
    | { status: number; error?: { code: string } }[]
    | undefined;
  if (results) {
    const items = results.map((r) => (r.error ? `${r.status} ${r.error.code}` : `${r.status}`));
    return `${response.status === 200 ? "" : `${response.status} ${response.body.code} `}[${items.join(", ")}]`;
  }
  if (response.status !== 200 && response.status !== 201)
    return `${response.status} ${response.body?.code}`;
  // A dry-run's create answers 200 with no id.
  return response.status === 201 || response.body?.data?.id === null ? "created" : "updated";
}

const DRY = { headers: { "x-dry-run": "1" } };
const put = (path: string, body: unknown, options = {}) =>
  api.request("PUT", path, { ...options, body });

/** A create body of the resource with the field set (the sample's own fields otherwise). */
function body({ sample, field }: Field, value: string | null, externalId?: string) {
  const values: Record<string, unknown> = { ...sample.create, [field]: value };
  if (externalId !== undefined) values.external_id = externalId;
  return values;
}

async function created(what: string, response: ApiResponse): Promise<number> {
  expect(`${what}: ${response.status}`).toBe(`${what}: 201`);
  return response.body.data.id as number;
}

/** One write path: stores or sends `a`, then asks for `b` as a dry-run and for real; their outcomes. */
type WritePath = (f: Field, a: string, b: string) => Promise<{ dry: string; real: string }>;

const PATHS: Record<string, { run: WritePath; expected: (distinct: boolean) => string }> = {
  POST: {
    expected: (distinct) => (distinct ? "created" : "409 unique_violation"),
    run: async (f, a, b) => {
      const path = `/v1/${f.sample.resource}`;
      await created(`POST ${a}`, await api.post(path, body(f, a)));
      const dry = outcome(`POST dry ${b}`, await api.post(path, body(f, b), DRY));
      const real = outcome(`POST ${b}`, await api.post(path, body(f, b)));
      return { dry, real };
    },
  },
  "PUT by external id": {
    expected: (distinct) => (distinct ? "created" : "409 unique_violation"),
    run: async (f, a, b) => {
      const path = (externalId: string) =>
        `/v1/${f.sample.resource}/by-external-id/${encodeURIComponent(externalId)}`;
      // By external id the value is the path's; another field is in the body, under two external ids.
      const [first, second] = f.field === "external_id" ? [a, b] : [`${a}/1`, `${a}/2`];
      const bodyOf = (value: string) =>
        f.field === "external_id"
          ? { ...f.sample.create }
          : { ...f.sample.create, [f.field]: value };
      await created(`PUT ${first}`, await put(path(first), bodyOf(a)));
      const next = bodyOf(b);
      const dry = outcome(`PUT dry ${second}`, await put(path(second), next, DRY));
      const real = outcome(`PUT ${second}`, await put(path(second), next));
      return { dry, real };
    },
  },
  PATCH: {
    expected: (distinct) => (distinct ? "updated" : "409 unique_violation"),
    run: async (f, a, b) => {
      const path = `/v1/${f.sample.resource}`;
      await created(`POST ${a}`, await api.post(path, body(f, a)));
      const other = await created("POST other", await api.post(path, body(f, null)));
      const patch = { [f.field]: b };
      const dry = outcome(`PATCH dry ${b}`, await api.patch(`${path}/${other}`, patch, DRY));
      const real = outcome(`PATCH ${b}`, await api.patch(`${path}/${other}`, patch));
      return { dry, real };
    },
  },
  "batch, one item after the other": {
    expected: (distinct) => (distinct ? "[201, 201]" : "[201, 409 unique_violation]"),
    run: async (f, a, b) => {
      const path = `/v1/${f.sample.resource}/batch`;
      const batch = { items: [body(f, a), body(f, b)] };
      const dry = outcome(`batch dry ${a} ${b}`, await api.post(path, batch, DRY));
      const real = outcome(`batch ${a} ${b}`, await api.post(path, batch));
      return { dry, real };
    },
  },
  "atomic batch": {
    expected: (distinct) =>
      distinct ? "[201, 201]" : "422 batch_failed [201, 409 unique_violation]",
    run: async (f, a, b) => {
      const path = `/v1/${f.sample.resource}/batch`;
      const batch = { atomic: true, items: [body(f, a), body(f, b)] };
      const dry = outcome(`atomic dry ${a} ${b}`, await api.post(path, batch, DRY));
      const real = outcome(`atomic ${a} ${b}`, await api.post(path, batch));
      return { dry, real };
    },
  },
  "batch upsert (on_conflict update) after a stored record": {
    expected: (distinct) => (distinct ? "[200, 201]" : "[200, 409 unique_violation]"),
    run: async (f, a, b) => {
      const path = `/v1/${f.sample.resource}`;
      // The item keys: the values themselves, or for code and serial_number two external ids.
      const [first, second] = f.field === "external_id" ? [a, b] : [`${a}/1`, `${a}/2`];
      const stored = body(f, a, first);
      await created(`POST ${a}`, await api.post(path, stored));
      const upsert = { on_conflict: "update", items: [stored, body(f, b, second)] };
      const dry = outcome(`upsert dry ${b}`, await api.post(`${path}/batch`, upsert, DRY));
      const real = outcome(`upsert ${b}`, await api.post(`${path}/batch`, upsert));
      return { dry, real };
    },
  },
};

describe("unique values compare exactly, the same on every write path", () => {
  for (const [pathName, { run, expected }] of Object.entries(PATHS)) {
    for (const f of FIELDS) {
      test(`${pathName}: ${f.sample.resource}.${f.field}`, async () => {
        const seen = await Promise.all(
          PAIRS.map(async (pair: Pair) => {
            const prefix = nextPrefix();
            const { dry, real } = await run(f, `${prefix}${pair.a}`, `${prefix}${pair.b}`);
            return `${pair.name}: dry ${dry}, real ${real}`;
          }),
        );
        expect(seen).toEqual(
          PAIRS.map((pair) => {
            const answer = expected(pair.distinct);
            return `${pair.name}: dry ${answer}, real ${answer}`;
          }),
        );
      });
    }
  }
});

describe("what else reads unique values", () => {
  test("a dry-run told what earlier batches take (preceding) predicts the real run", async () => {
    const f = FIELDS.find((field) => field.field === "external_id")!;
    const seen = await Promise.all(
      PAIRS.map(async (pair) => {
        const prefix = nextPrefix();
        const [a, b] = [`${prefix}${pair.a}`, `${prefix}${pair.b}`];
        const path = `/v1/${f.sample.resource}/batch`;
        const second = { on_conflict: "update", items: [body(f, b)] };
        const dry = await api.post(
          path,
          {
            ...second,
            preceding: { created: 1, unique: { external_id: [a] } },
          },
          DRY,
        );
        outcome(`first ${a}`, await api.post(path, { on_conflict: "update", items: [body(f, a)] }));
        const real = await api.post(path, second);
        return `${pair.name}: dry ${outcome("dry", dry)}, real ${outcome("real", real)}`;
      }),
    );
    expect(seen).toEqual(
      PAIRS.map((pair) => {
        const answer = pair.distinct ? "[201]" : "[409 unique_violation]";
        return `${pair.name}: dry ${answer}, real ${answer}`;
      }),
    );
  });

  test("the external_id filter matches exactly, trailing spaces aside", async () => {
    const prefix = nextPrefix();
    const values = ["abc", "ABC", "abç", "😀", "😁"].map((value) => `${prefix}${value}`);
    const ids = await Promise.all(
      values.map(async (value) =>
        created(
          `POST ${value}`,
          await api.post("/v1/clients", { name: "Filter", external_id: value }),
        ),
      ),
    );
    const found = async (value: string) =>
      (await api.get(`/v1/clients?external_id=${encodeURIComponent(value)}`)).body.data.map(
        (record: { id: number }) => record.id,
      );
    expect(await Promise.all(values.map(found))).toEqual(ids.map((id) => [id]));
    expect(await found(`${prefix}abc `)).toEqual([ids[0]]);
    expect(await found(`${prefix}Abc`)).toEqual([]);
  });

  test("searches (q) stay case-insensitive on the unique columns", async () => {
    const prefix = `q${crypto.randomUUID().slice(0, 6)}`;
    const project = await created(
      "project",
      await api.post("/v1/projects", { name: "Search", code: `${prefix}-Harbour` }),
    );
    const equipment = await created(
      "equipment",
      await api.post("/v1/equipment", { name: "Search", serial_number: `${prefix}-Digger` }),
    );
    const ids = async (resource: string, q: string) =>
      (await api.get(`/v1/${resource}?q=${encodeURIComponent(q)}`)).body.data.map(
        (record: { id: number }) => record.id,
      );
    expect(await ids("projects", `${prefix}-HARBOUR`.toLowerCase())).toEqual([project]);
    expect(await ids("projects", `${prefix}-harbour`.toUpperCase())).toEqual([project]);
    expect(await ids("equipment", `${prefix}-digger`)).toEqual([equipment]);
    expect(await ids("equipment", `${prefix}-DIGGER`.toUpperCase())).toEqual([equipment]);
  });

  test("writes racing for one value: one wins, the others are 409 unique_violation, none 5xx", async () => {
    const prefix = nextPrefix();
    const values = [`${prefix}race`, `${prefix}race`, `${prefix}race `, `${prefix}race  `];
    const answers = await Promise.all(
      [...values, ...values].map(async (value) =>
        outcome(
          `race ${value}`,
          await api.post("/v1/workers", { name: "Racer", external_id: value }),
        ),
      ),
    );
    expect(answers.sort()).toEqual([...Array(7).fill("409 unique_violation"), "created"]);
  });
});
