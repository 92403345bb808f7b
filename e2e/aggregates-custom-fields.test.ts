// Reports by a company's own fields (docs/api.md, "Reports"): `group_by=cf.<key>` on select and
// boolean fields, sums and means of integer, decimal and money ones, min/max and buckets of dates,
// `cf.` filters; compared with the same totals added up in the test from the records it wrote.
// A sensitive custom field is neither grouped, measured nor filtered on without its scope.
import { beforeAll, describe, expect, test } from "bun:test";
import { type Api, create } from "@erp/testing/api";
import { newCompany, newToken, type TestCompany } from "@erp/testing/company";
import { expectProblem } from "@erp/testing/rules";
import { useServer } from "@erp/testing/suite";

const suite = useServer();
let company: TestCompany;
let api: Api;
const SIZES = ["S", "M", "L", null] as const;
type Written = {
  size: string | null;
  union: boolean | null;
  shifts: number | null;
  hours: string | null;
  bonus: string | null;
  due: string | null;
};
const written: Written[] = [];

beforeAll(async () => {
  company = await newCompany();
  api = suite.api.as(company.token);
  for (const [key, type, extra] of [
    ["size", "select", { options: { choices: ["S", "M", "L"] } }],
    ["union", "boolean", {}],
    ["shifts", "integer", {}],
    ["hours", "decimal", {}],
    ["bonus", "money", { sensitive: true }],
    ["due", "date", {}],
  ] as const) {
    const made = await api.post("/v1/custom-fields", {
      resource: "workers",
      key,
      label: `${key} label`,
      type,
      ...extra,
    });
    expect(made.status).toBe(201);
  }
  for (let n = 0; n < 30; n++) {
    const values: Written = {
      size: SIZES[n % 4]!,
      union: n % 3 === 0 ? null : n % 3 === 1,
      shifts: n % 7 === 0 ? null : n,
      hours: n % 5 === 0 ? null : `${n}.125`,
      bonus: n % 4 === 0 ? null : `${n * 3}.05`,
      due: n % 6 === 0 ? null : `2027-0${1 + (n % 3)}-1${n % 9}`,
    };
    await create(api, "/v1/workers", { name: `W${n}`, custom_fields: values });
    written.push(values);
  }
});

const cents = (text: string) => Math.round(Number(text) * 100);
const thousandths = (text: string) => Math.round(Number(text) * 1000);

describe("reports by custom fields", () => {
  test("grouped by a select field: counts, exact sums of money, integers and decimals", async () => {
    const answer = await api.get(
      "/v1/workers/aggregate?group_by=cf.size&metrics=count,sum(cf.bonus),sum(cf.shifts),sum(cf.hours),max(cf.due)",
    );
    expect(answer.status).toBe(200);
    const expected = [null, "L", "M", "S"].map((size) => {
      const rows = written.filter((row) => row.size === size);
      const sum = <K extends keyof Written>(key: K, scale: (v: string) => number) =>
        rows.reduce((total, row) => total + (row[key] === null ? 0 : scale(String(row[key]))), 0);
      const dues = rows.map((row) => row.due).filter((due): due is string => due !== null);
      return {
        group: { "cf.size": size },
        count: rows.length,
        "sum(cf.bonus)": (sum("bonus", cents) / 100).toFixed(2),
        "sum(cf.shifts)": String(sum("shifts", Number)),
        "sum(cf.hours)": String(sum("hours", thousandths) / 1000),
        "max(cf.due)": dues.sort().at(-1) ?? null,
      };
    });
    expect(answer.body.data).toEqual(expected);
    expect(answer.body.meta).toEqual({ groups: 4 });
  });

  test("grouped by a boolean field and a month of a date field, filtered by cf.", async () => {
    const answer = await api.get(
      "/v1/workers/aggregate?group_by=cf.union,month(cf.due)&cf.size=S,M",
    );
    expect(answer.status).toBe(200);
    const counts = new Map<string, number>();
    for (const row of written.filter((one) => one.size === "S" || one.size === "M")) {
      const key = JSON.stringify([row.union, row.due?.slice(0, 7) ?? null]);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const got = new Map<string, number>(
      answer.body.data.map((row: { group: Record<string, unknown>; count: number }) => [
        JSON.stringify([row.group["cf.union"], row.group["month(cf.due)"]]),
        row.count,
      ]),
    );
    expect(got).toEqual(counts);
  });

  test("a name the company has no field for is 400 invalid_query naming it", async () => {
    expectProblem(await api.get("/v1/workers/aggregate?group_by=cf.nothing"), 400, "invalid_query");
    const summed = await api.get("/v1/workers/aggregate?metrics=sum(cf.size)");
    expectProblem(summed, 400, "invalid_query");
    expect(summed.body.detail).toContain("sum(cf.size)");
  });

  test("a sensitive custom field needs the resource's sensitive scope", async () => {
    const narrow = suite.api.as(
      await newToken(company.companyId, { name: "reports", scopes: ["workers:read"] }),
    );
    expectProblem(
      await narrow.get("/v1/workers/aggregate?metrics=sum(cf.bonus)"),
      403,
      "insufficient_scope",
    );
    expectProblem(
      await narrow.get("/v1/workers/aggregate?cf.bonus[gte]=1"),
      403,
      "insufficient_scope",
    );
    const counted = await narrow.get("/v1/workers/aggregate?group_by=cf.size");
    expect(counted.status).toBe(200);
    expect(JSON.stringify(counted.body)).not.toContain("bonus");
  });
});
