// Lists by custom fields (docs/custom-fields.md): `cf.<key>=` filters (a select's any-of), ranges,
// `sort=cf.<key>` paged on cursors visiting every record once in order (records without a value
// first ascending, last descending), `fields=…,custom_fields`, bad parameters as 400, and the
// statements read the typed index (EXPLAIN).
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { RowDataPacket } from "mysql2";
import { customSortPhases, pageQuery } from "@erp/server/lists";
import { definitionNamed } from "@erp/server/registry";
import { type Api, create } from "@erp/testing/api";
import { newCompany, testDb, type TestCompany } from "@erp/testing/company";
import { expectProblem } from "@erp/testing/rules";
import { ROOT } from "@erp/testing/server";
import { runTool } from "@erp/testing/spec-tools";
import { useServer } from "@erp/testing/suite";
import { ErpClient } from "../sdk/mod.ts";

const suite = useServer();
let company: TestCompany;
let api: Api;
const fields: Record<string, any> = {};
const SIZES = ["S", "M", "L", null];
const records: { id: number; size: string | null; due: string | null; rate: string | null }[] = [];

beforeAll(async () => {
  company = await newCompany();
  api = suite.api.as(company.token);
  for (const [key, type, options] of [
    ["size", "select", { choices: ["S", "M", "L"] }],
    ["due", "date", undefined],
    ["rate", "decimal", undefined],
  ] as const) {
    const made = await api.post("/v1/custom-fields", {
      resource: "workers",
      key,
      label: key,
      type,
      ...(options ? { options } : {}),
    });
    fields[key] = made.body.data.record;
  }
  for (let n = 0; n < 23; n++) {
    const size = SIZES[n % 4]!;
    const due = n % 5 === 0 ? null : `2027-0${1 + (n % 3)}-1${n % 7}`;
    const rate = n % 6 === 0 ? null : `${(n * 7) % 11}.5`;
    const id = await create(api, "/v1/workers", {
      name: `W${n}`,
      custom_fields: { size, due, rate },
    });
    records.push({ id, size, due, rate });
  }
});

/** Every page of a list, following meta.next_cursor. */
async function allPages(query: string): Promise<any[]> {
  const seen: any[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await api.get(
      `/v1/workers?${query}&limit=4${after ? `&after=${encodeURIComponent(after)}` : ""}`,
    );
    expect(page.status).toBe(200);
    seen.push(...page.body.data);
    after = page.body.meta.next_cursor;
    if (!after) return seen;
  }
}

const compare = (a: string | null, b: string | null, numeric: boolean): number => {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return numeric ? Number(a) - Number(b) : a < b ? -1 : 1;
};

describe("filters and ranges", () => {
  test("cf.<key>= finds the records holding the value; a select takes any of a,b", async () => {
    const m = await api.get("/v1/workers?cf.size=M&limit=100");
    expect(m.body.data.map((w: any) => w.id)).toEqual(
      records.filter((r) => r.size === "M").map((r) => r.id),
    );
    expect(m.body.meta.total).toBe(records.filter((r) => r.size === "M").length);
    const any = await api.get("/v1/workers?cf.size=S,L&limit=100");
    expect(any.body.data.map((w: any) => w.id)).toEqual(
      records.filter((r) => r.size === "S" || r.size === "L").map((r) => r.id),
    );
  });

  test("ranges on dates and decimals; combined with built-in filters", async () => {
    const due = await api.get("/v1/workers?cf.due[gte]=2027-02-01&cf.due[lt]=2027-03-01&limit=100");
    expect(due.body.data.map((w: any) => w.id)).toEqual(
      records
        .filter((r) => r.due && r.due >= "2027-02-01" && r.due < "2027-03-01")
        .map((r) => r.id),
    );
    const rate = await api.get("/v1/workers?cf.rate[gt]=5&q=W1&limit=100");
    expect(rate.body.data.map((w: any) => w.id)).toEqual(
      records
        .filter((r, n) => r.rate !== null && Number(r.rate) > 5 && `W${n}`.includes("W1"))
        .map((r) => r.id),
    );
  });

  test("a filter's total counts live records: a deleted record leaves it, its restore comes back", async () => {
    const totals = async () =>
      Promise.all(
        ["cf.size=L", "cf.size=S,L", "cf.due[gte]=2027-03-01", "cf.size=L&q=Gone"].map(
          async (query) => (await api.get(`/v1/workers?${query}&limit=1`)).body.meta.total,
        ),
      );
    const before = await totals();
    const id = await create(api, "/v1/workers", {
      name: "Gone",
      custom_fields: { size: "L", due: "2027-03-15" },
    });
    expect(await totals()).toEqual([before[0] + 1, before[1] + 1, before[2] + 1, 1]);
    expect((await api.delete(`/v1/workers/${id}`)).status).toBe(200);
    expect(await totals()).toEqual(before);
    expect((await api.post(`/v1/workers/${id}/restore`, {})).status).toBe(200);
    expect(await totals()).toEqual([before[0] + 1, before[1] + 1, before[2] + 1, 1]);
    expect((await api.delete(`/v1/workers/${id}`)).status).toBe(200);
  });

  test("unknown keys, bad values and ranges on a select are 400 invalid_query", async () => {
    expectProblem(await api.get("/v1/workers?cf.nope=1"), 400, "invalid_query");
    expectProblem(await api.get("/v1/workers?cf.size=XL"), 400, "invalid_query");
    expectProblem(await api.get("/v1/workers?cf.due[gte]=2027-02-30"), 400, "invalid_query");
    expectProblem(await api.get("/v1/workers?cf.size[gte]=S"), 400, "invalid_query");
    expectProblem(await api.get("/v1/workers?sort=cf.nope"), 400, "invalid_query");
    expectProblem(await api.get("/v1/workers?sort=cf.due,name"), 400, "invalid_query");
    expectProblem(await api.get("/v1/trades?cf.size=S"), 400, "invalid_query");
    const other = suite.api.as((await newCompany()).token);
    expectProblem(await other.get("/v1/workers?cf.size=S"), 400, "invalid_query");
  });

  test("fields=name,custom_fields shows the values", async () => {
    const list = await api.get("/v1/workers?fields=name,custom_fields&limit=1");
    expect(Object.keys(list.body.data[0]).sort()).toEqual(["custom_fields", "id", "name"]);
    expect(Object.keys(list.body.data[0].custom_fields)).toEqual(["size", "due", "rate"]);
  });
});

describe("sorts on cursors", () => {
  for (const [key, numeric] of [
    ["due", false],
    ["rate", true],
    ["size", false],
  ] as const)
    for (const descending of [false, true])
      test(`sort=${descending ? "-" : ""}cf.${key} visits every record once, in order`, async () => {
        const seen = await allPages(`sort=${descending ? "-" : ""}cf.${key}`);
        const expected = [...records].sort((a, b) => {
          const order = compare(a[key], b[key], numeric) || a.id - b.id;
          return descending ? -order : order;
        });
        expect(seen.map((w) => w.id)).toEqual(expected.map((r) => r.id));
        expect(seen.map((w) => w.custom_fields[key])).toEqual(expected.map((r) => r[key]));
      });

  test("a sorted and filtered list pages too; a cursor of another sort is 400", async () => {
    const seen = await allPages("sort=-cf.due&cf.size=S,M");
    const expected = records
      .filter((r) => r.size === "S" || r.size === "M")
      .sort((a, b) => -(compare(a.due, b.due, false) || a.id - b.id));
    expect(seen.map((w) => w.id)).toEqual(expected.map((r) => r.id));
    const first = await api.get("/v1/workers?sort=cf.due&limit=2");
    const cursor = first.body.meta.next_cursor;
    expectProblem(
      await api.get(`/v1/workers?sort=cf.rate&limit=2&after=${cursor}`),
      400,
      "invalid_query",
    );
  });
});

test("a sort where every live record holds a value, then one without: each page in order", async () => {
  const own = suite.api.as((await newCompany()).token);
  await own.post("/v1/custom-fields", {
    resource: "workers",
    key: "grade",
    label: "Grade",
    type: "integer",
  });
  const held: { id: number; grade: number | null }[] = [];
  for (const grade of [3, 1, 2, 1, 5])
    held.push({
      id: await create(own, "/v1/workers", { name: "G", custom_fields: { grade } }),
      grade,
    });
  const deleted = await create(own, "/v1/workers", { name: "Deleted, no grade" });
  expect((await own.delete(`/v1/workers/${deleted}`)).status).toBe(200);
  const walk = async (sort: string): Promise<number[]> => {
    const ids: number[] = [];
    for (let after: string | undefined, first = true; first || after; first = false) {
      const page = await own.get(
        `/v1/workers?sort=${sort}&limit=2${after ? `&after=${encodeURIComponent(after)}` : ""}`,
      );
      expect(page.status).toBe(200);
      ids.push(...page.body.data.map((w: any) => w.id));
      after = page.body.meta.next_cursor;
    }
    return ids;
  };
  const text = (grade: number | null) => (grade === null ? null : String(grade));
  const ordered = () =>
    [...held]
      .sort((a, b) => compare(text(a.grade), text(b.grade), true) || a.id - b.id)
      .map((r) => r.id);
  expect(await walk("cf.grade")).toEqual(ordered());
  expect(await walk("-cf.grade")).toEqual(ordered().reverse());
  held.push({ id: await create(own, "/v1/workers", { name: "No grade" }), grade: null });
  expect(await walk("cf.grade")).toEqual(ordered());
  expect(await walk("-cf.grade")).toEqual(ordered().reverse());
});

describe("the statements read the index", () => {
  async function explain(criteria: Record<string, unknown>): Promise<RowDataPacket[]> {
    const def = definitionNamed("workers");
    const { sql, params } = pageQuery(
      testDb().db,
      def,
      { companyId: company.companyId },
      {
        limit: 10,
        start: { offset: 0 },
        total: false,
        filters: {},
        fields: ["id"],
        ...criteria,
      } as never,
      11,
    ).toSQL();
    const [plan] = await testDb().pool.query<RowDataPacket[]>(`EXPLAIN ${sql}`, params);
    return plan;
  }

  test("a filter and a range read custom_field_values by an index of (company_id, field_id, value)", async () => {
    const filter = await explain({
      custom: { filters: [{ field: fields.size, values: ["M"] }] },
    });
    const read = filter.find((row) => row.table === "custom_field_values");
    expect(read?.key, JSON.stringify(filter)).toMatch(/custom_field_values_text|PRIMARY/);
    const range = await explain({
      custom: { filters: [{ field: fields.due, range: { gte: "2027-02-01" } }] },
    });
    expect(JSON.stringify(range)).toContain("custom_field_values");
    expect(range.every((row) => row.key !== null || row.table !== "custom_field_values")).toBe(
      true,
    );
  });

  test("a cursor page of a custom sort reads each phase in an index's order, without sorting", async () => {
    const seeded = await newCompany();
    const seededApi = suite.api.as(seeded.token);
    const due = (
      await seededApi.post("/v1/custom-fields", {
        resource: "workers",
        key: "due",
        label: "Due",
        type: "date",
      })
    ).body.data.record;
    const base = 900_000_000;
    const digits =
      "(SELECT 0 d UNION SELECT 1 UNION SELECT 2 UNION SELECT 3 UNION SELECT 4 UNION SELECT 5 " +
      "UNION SELECT 6 UNION SELECT 7 UNION SELECT 8 UNION SELECT 9)";
    const n = "(a.d + 10 * b.d + 100 * c.d + 1000 * e.d)";
    const from = `FROM ${digits} a, ${digits} b, ${digits} c, ${digits} e`;
    await testDb().pool.query(
      "INSERT INTO workers (id, company_id, name, status, live) " +
        `SELECT ${base} + ${n}, ${seeded.companyId}, CONCAT('W', ${n}), 'ACTIVE', 1 ${from}`,
    );
    await testDb().pool.query(
      "INSERT INTO custom_field_values (company_id, field_id, record_id, value_date) " +
        `SELECT ${seeded.companyId}, ${due.id}, ${base} + ${n}, ` +
        `DATE('2020-01-01') + INTERVAL (${n} * 37 % 2000) DAY ${from} WHERE ${n} % 3 <> 0`,
    );
    await testDb().pool.query("ANALYZE TABLE workers, custom_field_values");
    const def = definitionNamed("workers");
    for (const descending of [false, true])
      for (const after of [
        undefined,
        { id: base + 5000, values: ["2022-01-01"] },
        { id: base + 4000, values: [null] },
      ]) {
        const phases = customSortPhases(
          testDb().db,
          def,
          { companyId: seeded.companyId },
          {
            limit: 10,
            start: after ? { after } : { offset: 0 },
            total: false,
            filters: {},
            fields: ["id", "name"],
            sort: [{ field: "cf.due", descending }],
            custom: { filters: [], sort: due },
          },
        );
        for (const phase of phases) {
          const { sql, params } = (phase.read(11) as any).toSQL();
          const [plan] = await testDb().pool.query<RowDataPacket[]>(`EXPLAIN ${sql}`, params);
          const what = `${descending ? "-" : ""}cf.due after ${JSON.stringify(after)}: ${JSON.stringify(plan)}`;
          expect(plan.map((row) => String(row.Extra ?? "")).join(";"), what).not.toContain(
            "filesort",
          );
          expect(plan[0]!.key, what).not.toBeNull();
        }
      }
    await testDb().pool.query(
      `DELETE FROM custom_field_values WHERE company_id = ${seeded.companyId}`,
    );
    await testDb().pool.query(`DELETE FROM workers WHERE company_id = ${seeded.companyId}`);
    // InnoDB made its largest id plus one the next: suites that run later read it (list-indexes).
    await testDb().pool.query("ALTER TABLE workers AUTO_INCREMENT = 1");
  });

  test("a sort joins each record's value by the index's primary key", async () => {
    const plan = await explain({
      sort: [{ field: "cf.due", descending: false }],
      custom: { filters: [], sort: fields.due },
    });
    const joined = plan.find((row) => row.table === "cf_sort");
    expect(joined?.key, JSON.stringify(plan)).not.toBeNull();
  });
});

describe("the SDK", () => {
  test("erp.customFields, custom_fields on records and inputs, cf filters and a cf sort in list()", async () => {
    const erp = new ErpClient({ baseUrl: suite.server.baseUrl, token: company.token });
    const made = await erp.customFields.create({
      resource: "workers",
      key: "shirt",
      label: "Shirt size",
      type: "select",
      options: { choices: ["S", "M"] },
    });
    expect(made.record?.key).toBe("shirt");
    expect((await erp.customFields.list({ resource: "workers" })).map((f) => f.key)).toContain(
      "shirt",
    );
    const updated = await erp.customFields.update(made.id!, { label: "Shirt" });
    expect(updated.changes).toEqual({ label: { from: "Shirt size", to: "Shirt" } });
    const created = await erp.workers.create({ name: "Sdk", custom_fields: { shirt: "M" } });
    const worker = await erp.workers.get(created.id!);
    expect(worker.custom_fields.shirt).toBe("M");
    const found = await erp.workers.list({ cf: { shirt: ["M"], rate: { gte: 0 } } }).toArray();
    expect(found.map((w) => w.id)).toEqual([]);
    const byShirt = await erp.workers.list({ cf: { shirt: "M" } }).toArray();
    expect(byShirt.map((w) => w.id)).toEqual([created.id]);
    const sorted = await erp.workers
      .list({ sort: ["-cf.due" as never], limit: 5, cf: { size: ["S", "L"] } })
      .toArray();
    expect(sorted.map((w) => w.id)).toEqual(
      records
        .filter((r) => r.size === "S" || r.size === "L")
        .sort((a, b) => -(compare(a.due, b.due, false) || a.id - b.id))
        .map((r) => r.id),
    );
    const removed = await erp.customFields.delete(made.id!);
    expect(removed.values_cleared).toBe(1);
  });
});

describe("the company's own document", () => {
  test("with a token /v1/openapi.json types the company's fields; without one it is unchanged", async () => {
    const anonymous = await suite.api.get("/v1/openapi.json", { token: null });
    const typed = await api.get("/v1/openapi.json");
    expect(anonymous.headers.get("vary")).toContain("Authorization");
    expect(typed.headers.get("vary")).toContain("Authorization");
    const open = anonymous.body.components.schemas.Worker.properties.custom_fields;
    expect(open.patternProperties).toBeDefined();
    const own = typed.body.components.schemas.Worker.properties.custom_fields;
    expect(Object.keys(own.properties)).toEqual(["size", "due", "rate"]);
    expect(own.properties.size.enum).toEqual(["S", "M", "L", null]);
    expect(own.required).toEqual(["size", "due", "rate"]);
    const names = typed.body.paths["/v1/workers"].get.parameters.map((p: any) => p.name);
    expect(names).toEqual(expect.arrayContaining(["cf.size", "cf.due[gte]", "cf.rate[lt]"]));
    expectProblem(
      await suite.api.get("/v1/openapi.json", { token: "erp_nope" }),
      401,
      "unauthorized",
    );
  });

  test("openapi-typescript makes a client that types a custom value (tsc --strict)", async () => {
    const dir = mkdtempSync(path.join(ROOT, "testing", "tmp-company-doc-"));
    try {
      writeFileSync(path.join(dir, "openapi.json"), (await api.get("/v1/openapi.json")).text);
      const run = await runTool("openapi-typescript", [
        path.join(dir, "openapi.json"),
        "-o",
        path.join(dir, "company.d.ts"),
      ]);
      expect(run.exitCode).toBe(0);
      writeFileSync(
        path.join(dir, "use.ts"),
        `import type { components } from "./company";
type Worker = components["schemas"]["Worker"];
type Size = Worker["custom_fields"]["size"];
const size: Size = "M";
// @ts-expect-error not one of the choices
const wrong: Size = "XL";
const due: string | null = ({} as Worker).custom_fields.due;
// @ts-expect-error a decimal is shown as text
const rate: number = ({} as Worker).custom_fields.rate;
export { size, wrong, due, rate };
`,
      );
      writeFileSync(
        path.join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: { strict: true, noEmit: true, skipLibCheck: true, target: "ES2022" },
          include: ["*.ts"],
        }),
      );
      const result = Bun.spawnSync(
        [
          process.execPath,
          path.join(ROOT, "node_modules/.bin/tsc"),
          "-p",
          path.join(dir, "tsconfig.json"),
        ],
        { cwd: dir },
      );
      const output = result.stdout.toString() + result.stderr.toString();
      expect(output).toBe("");
      expect(result.exitCode).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
