// Reports (docs/api.md, "Reports"): random projects in several currencies and random workers,
// each report compared with the same totals the test computes from a full export of the records
// (money added as integer cents, the mean rounded half to even), for every group kind and metric,
// with filters; soft-deleted records left out; bad names, too many groups, ETag and 304, the SDK.
import { beforeAll, describe, expect, test } from "bun:test";
import type { Api } from "@erp/testing/api";
import { create } from "@erp/testing/api";
import { erpFor } from "@erp/testing/cli";
import { newCompany, newToken } from "@erp/testing/company";
import { useServer } from "@erp/testing/suite";
import { ErpClient } from "../sdk/mod.ts";

const suite = useServer();
type Row = Record<string, any>;

let api: Api;
let erp: ErpClient;
let token: string;
let companyId: number;
let projects: Row[];
let workers: Row[];

/** A seeded random source, so that a failure can be replayed with the seed it prints. */
const SEED = Number(process.env.AGGREGATES_SEED ?? Date.now() % 1_000_000);
let state = SEED;
const random = (): number => {
  state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
  return state / 2_147_483_648;
};
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
const maybe = <T>(value: T): T | null => (random() < 0.15 ? null : value);
const money = (): string =>
  `${Math.floor(random() * 5_000_000)}.${String(Math.floor(random() * 100)).padStart(2, "0")}`;
const day = (from: number, span: number, n = Math.floor(random() * span)): string =>
  new Date(Date.UTC(from, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);

async function seed(path: string, items: Row[]): Promise<void> {
  for (let i = 0; i < items.length; i += 500) {
    const chunk = items.slice(i, i + 500);
    const response = await api.post(`/v1/${path}/batch`, {
      items: chunk,
      item_keys: chunk.map(() => crypto.randomUUID()),
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.created).toBe(chunk.length);
  }
}

beforeAll(async () => {
  console.log(`aggregates: AGGREGATES_SEED=${SEED}`);
  const company = await newCompany();
  token = company.token;
  companyId = company.companyId;
  api = suite.api.as(company.token);
  erp = new ErpClient({ baseUrl: suite.server.baseUrl, token: company.token });
  await seed(
    "clients",
    Array.from({ length: 12 }, (_, i) => ({ name: `Client ${i}` })),
  );
  const clientIds = (await Array.fromAsync(erp.clients.list())).map((c) => c.id);
  const tradeIds = (await Array.fromAsync(erp.trades.list())).map((t) => t.id);
  const words = ["Harbour", "Tower", "Bridge", "School", "Depot"];
  await seed(
    "projects",
    Array.from({ length: 2_400 }, (_, i) => {
      // The first 1,100 start on days of their own: grouped by day they are too many groups.
      const start = maybe(i < 1_100 ? day(2020, 0, i) : day(2020, 2_500));
      return {
        name: `${pick(words)} ${i}`,
        status: pick(["DRAFT", "ACTIVE"]),
        billing_mode: pick(["FIXED_PRICE", "TIME_AND_MATERIALS", "COST_PLUS"]),
        client_id: maybe(pick(clientIds)),
        currency: pick(["USD", "EUR", "GBP", "JPY"]),
        budget_amount: maybe(money()),
        start_date: start,
        end_date: start && maybe(day(2027, 400)),
      };
    }),
  );
  await seed(
    "workers",
    Array.from({ length: 1_500 }, (_, i) => ({
      name: `Worker ${pick(words)} ${i}`,
      status: pick(["ACTIVE", "INACTIVE"]),
      trade_id: maybe(pick(tradeIds)),
      hourly_rate: maybe(`${Math.floor(random() * 120)}.${pick(["00", "25", "50", "75", "05"])}`),
      hired_on: maybe(day(2015, 4_000)),
    })),
  );
  // Deleted records are in no report.
  const some = (await erp.projects.listPage({ limit: 25 })).data;
  for (const project of some)
    expect((await api.delete(`/v1/projects/${project.id}`)).status).toBe(200);
  projects = await Array.fromAsync(erp.projects.list());
  workers = await Array.fromAsync(erp.workers.list());
  expect(projects.length).toBe(2_400 - 25);
}, 240_000);

const cents = (text: string): bigint => BigInt(text.replace(".", ""));
const amount = (value: bigint): string =>
  `${value / 100n}.${String(value % 100n).padStart(2, "0")}`;

/** The ISO 8601 week of a day: the year of its Thursday, and that Thursday's week number. */
function isoWeek(date: string): string {
  const at = new Date(`${date.slice(0, 10)}T00:00:00Z`);
  at.setUTCDate(at.getUTCDate() - ((at.getUTCDay() + 6) % 7) + 3);
  const year = at.getUTCFullYear();
  const week = 1 + Math.floor((at.getTime() - Date.UTC(year, 0, 1)) / (7 * 86_400_000));
  return `${year}-W${String(week).padStart(2, "0")}`;
}

const BUCKETS: Record<string, (value: string) => string> = {
  day: (value) => value.slice(0, 10),
  week: isoWeek,
  month: (value) => value.slice(0, 7),
  year: (value) => value.slice(0, 4),
};

function keyOf(record: Row, name: string): unknown {
  const call = /^([a-z]+)\((.+)\)$/.exec(name);
  if (!call) return record[name] ?? null;
  const value = record[call[2]!];
  return value === null || value === undefined ? null : BUCKETS[call[1]!]!(value);
}

/** A metric of a group's records, computed here: money in integer cents, the mean half to even. */
function metricOf(records: Row[], name: string): unknown {
  if (name === "count") return records.length;
  const [, measure, field] = /^([a-z]+)\((.+)\)$/.exec(name)!;
  const values = records.map((r) => r[field!]).filter((v) => v !== null && v !== undefined);
  const isMoney = values.every((v) => /^\d+\.\d{2}$/.test(v));
  if (measure === "min" || measure === "max") {
    if (values.length === 0) return null;
    const sorted = [...values].sort((a, b) =>
      isMoney ? Number(cents(a) - cents(b)) : a < b ? -1 : a > b ? 1 : 0,
    );
    return measure === "min" ? sorted[0] : sorted.at(-1);
  }
  const total = values.reduce((sum, v) => sum + cents(v), 0n);
  if (measure === "sum") return amount(total);
  if (values.length === 0) return null;
  const n = BigInt(values.length);
  let mean = total / n;
  const rest = total % n;
  if (2n * rest > n || (2n * rest === n && mean % 2n === 1n)) mean += 1n;
  return amount(mean);
}

/** Keys in SQL's order: null first, then numbers, flags and text by value. */
function compareKeys(a: unknown[], b: unknown[]): number {
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i], b[i]];
    if (x === y) continue;
    if (x === null) return -1;
    if (y === null) return 1;
    return (x as number | string) < (y as number | string) ? -1 : 1;
  }
  return 0;
}

/** The report the server should answer, computed from the exported records. */
function expected(records: Row[], groupBy: string[], metrics: string[], currency = false): Row[] {
  const keys = currency && !groupBy.includes("currency") ? [...groupBy, "currency"] : groupBy;
  const groups = new Map<string, { key: unknown[]; records: Row[] }>();
  for (const record of records) {
    const key = keys.map((name) => keyOf(record, name));
    const id = JSON.stringify(key);
    if (!groups.has(id)) groups.set(id, { key, records: [] });
    groups.get(id)!.records.push(record);
  }
  if (keys.length === 0) groups.set("[]", { key: [], records });
  return [...groups.values()]
    .sort((a, b) => compareKeys(a.key, b.key))
    .map(({ key, records: members }) => ({
      group: Object.fromEntries(keys.map((name, i) => [name, key[i]])),
      ...Object.fromEntries(
        (metrics.length ? metrics : ["count"]).map((m) => [m, metricOf(members, m)]),
      ),
    }));
}

async function report(path: string, query: string): Promise<Row[]> {
  const response = await api.get(`/v1/${path}/aggregate?${query}`);
  expect(response.status, response.text).toBe(200);
  expect(response.body.meta).toEqual({ groups: response.body.data.length });
  return response.body.data;
}

const MONEY_METRICS = (f: string) => [`sum(${f})`, `avg(${f})`, `min(${f})`, `max(${f})`];

describe("reports match the totals of a full export", () => {
  test("a count by an enum, and one group of everything", async () => {
    expect(await report("projects", "group_by=status")).toEqual(expected(projects, ["status"], []));
    expect(await report("workers", "")).toEqual(expected(workers, [], []));
  });

  test("money by an enum and a reference, grouped by currency too, with min and max of a date", async () => {
    const metrics = [
      "count",
      ...MONEY_METRICS("budget_amount"),
      "min(start_date)",
      "max(start_date)",
    ];
    const got = await report(
      "projects",
      `group_by=billing_mode,client_id&metrics=${metrics.join(",")}`,
    );
    expect(got).toEqual(expected(projects, ["billing_mode", "client_id"], metrics, true));
    expect(new Set(got.map((row) => row.group.currency)).size).toBe(4);
  });

  test("grouped by currency itself, money is not grouped by it twice", async () => {
    const got = await report(
      "projects",
      "group_by=currency&metrics=sum(budget_amount),avg(budget_amount)",
    );
    expect(got).toEqual(
      expected(projects, ["currency"], ["sum(budget_amount)", "avg(budget_amount)"]),
    );
  });

  test("every date bucket: day, ISO week, month and year, of dates and timestamps", async () => {
    const recent = projects.filter((p) => p.start_date !== null && p.start_date >= "2024-01-01");
    expect(await report("projects", "group_by=day(start_date)&start_date[gte]=2024-01-01")).toEqual(
      expected(recent, ["day(start_date)"], []),
    );
    for (const bucket of ["week", "month", "year"])
      expect(await report("projects", `group_by=${bucket}(start_date),status`)).toEqual(
        expected(projects, [`${bucket}(start_date)`, "status"], []),
      );
    expect(await report("workers", "group_by=year(hired_on),month(created_at)")).toEqual(
      expected(workers, ["year(hired_on)", "month(created_at)"], []),
    );
  });

  test("a resource without currency sums its money as one: workers' pay by trade and status", async () => {
    const metrics = ["count", ...MONEY_METRICS("hourly_rate"), "min(hired_on)", "max(hired_on)"];
    expect(
      await report("workers", `group_by=trade_id,status&metrics=${metrics.join(",")}`),
    ).toEqual(expected(workers, ["trade_id", "status"], metrics));
  });

  test("every list filter selects the records a report covers", async () => {
    const selected = projects.filter(
      (p) =>
        ["ACTIVE"].includes(p.status) &&
        p.name.toLowerCase().includes("harb") &&
        p.budget_amount !== null &&
        cents(p.budget_amount) >= 100_000n &&
        ["EUR", "USD"].includes(p.currency),
    );
    const metrics = ["count", "sum(budget_amount)", "avg(budget_amount)"];
    expect(
      await report(
        "projects",
        `group_by=year(start_date)&metrics=${metrics.join(",")}&status=active&q=HARB` +
          "&budget_amount[gte]=1000&currency=eur,usd",
      ),
    ).toEqual(expected(selected, ["year(start_date)"], metrics, true));
    const client = projects.find((p) => p.client_id !== null)!.client_id;
    expect(await report("projects", `group_by=status&client_id=${client}`)).toEqual(
      expected(
        projects.filter((p) => p.client_id === client),
        ["status"],
        [],
      ),
    );
  });

  test("a boolean groups by true and false: rentals billed or not, under their equipment", async () => {
    const equipment = await create(api, "/v1/equipment", { name: "Crane", daily_rate: "350.00" });
    const project = projects[0]!.id;
    for (const [i, billed] of [false, true, true, false, false].entries()) {
      const rental = await create(api, `/v1/equipment/${equipment}/rentals`, {
        project_id: project,
        start_date: `2026-0${i + 1}-01`,
        daily_rate: `${100 + i}.50`,
      });
      if (billed)
        expect(
          (await api.patch(`/v1/equipment/${equipment}/rentals/${rental}`, { billed: true }))
            .status,
        ).toBe(200);
    }
    const rentals = (await api.get(`/v1/equipment/${equipment}/rentals?limit=100`)).body.data;
    const metrics = ["count", "sum(daily_rate)", "max(start_date)"];
    expect(
      await report(
        `equipment/${equipment}/rentals`,
        `group_by=billed&metrics=${metrics.join(",")}`,
      ),
    ).toEqual(expected(rentals, ["billed"], metrics));
  });
});

describe("what a report refuses", () => {
  test.each([
    ["group_by=name", "name"],
    ["group_by=hourly_rate", "hourly_rate"],
    ["group_by=fortnight(hired_on)", "fortnight(hired_on)"],
    ["group_by=month(name)", "month(name)"],
    ["metrics=sum(name)", "sum(name)"],
    ["metrics=avg(hired_on)", "avg(hired_on)"],
    ["metrics=median(hourly_rate)", "median(hourly_rate)"],
    ["metrics=total", "total"],
    ["group_by=status,status", "status"],
    ["group_by=status,trade_id,year(hired_on),month(hired_on)", "at most 3"],
    ["group_by=status&sort=name", "sort"],
    ["group_by=status&limit=10", "limit"],
    ["group_by=status&hired_on[gte]=2024-13-01", "hired_on[gte]"],
  ])("%s is 400 invalid_query naming %s", async (query, named) => {
    const response = await api.get(`/v1/workers/aggregate?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe("invalid_query");
    expect(response.body.detail).toContain(named);
  });

  test("more than 1,000 groups is 400 too_many_groups", async () => {
    const response = await api.get("/v1/projects/aggregate?group_by=day(start_date)");
    expect(response.status).toBe(400);
    expect(response.body.code).toBe("too_many_groups");
  });
});

describe("a report as a read", () => {
  test("it needs the resource's read scope; a lookup's any read scope; a missing parent is 404", async () => {
    const narrow = api.as(await newToken(companyId, { scopes: ["workers:read"] }));
    expect((await narrow.get("/v1/workers/aggregate?group_by=status")).status).toBe(200);
    const refused = await narrow.get("/v1/projects/aggregate");
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("insufficient_scope");
    const trades = await narrow.get("/v1/trades/aggregate");
    expect(trades.status).toBe(200);
    expect(trades.body.data[0].count).toBe((await api.get("/v1/trades?limit=1")).body.meta.total);
    const orphan = await api.get("/v1/equipment/999999999/rentals/aggregate");
    expect(orphan.status).toBe(404);
  });

  test("its ETag answers If-None-Match with 304 until a record changes", async () => {
    const path = "/v1/workers/aggregate?group_by=status&metrics=count,sum(hourly_rate)";
    const first = await api.get(path);
    const etag = first.headers.get("etag")!;
    expect(etag).toBeTruthy();
    expect((await api.get(path, { headers: { "if-none-match": etag } })).status).toBe(304);
    await create(api, "/v1/workers", { name: "One more", hourly_rate: "10.00" });
    const after = await api.get(path, { headers: { "if-none-match": etag } });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(etag);
  });

  test("the SDK's aggregate() sends groupBy, metrics and filters", async () => {
    const fresh = await Array.fromAsync(erp.projects.list({ status: "DRAFT" }));
    const report = await erp.projects.aggregate({
      groupBy: ["billing_mode"],
      metrics: ["count", "sum(budget_amount)"],
      status: "DRAFT",
    });
    expect(report.data).toEqual(
      expected(fresh, ["billing_mode"], ["count", "sum(budget_amount)"], true) as never,
    );
    const total: number = (await erp.projects.aggregate()).data[0]!.count;
    expect(total).toBe(projects.length);
  });
});

describe("the mean of money", () => {
  test("is rounded half to even to the cent: 0.005 is 0.00, 0.015 is 0.02, 0.0175 is 0.02", async () => {
    const rates = {
      Evenlow: ["0.00", "0.01"],
      Evenhigh: ["0.01", "0.02"],
      Quarter: ["0.01", "0.02", "0.02", "0.02"],
    };
    for (const [name, values] of Object.entries(rates))
      for (const hourly_rate of values) await create(api, "/v1/workers", { name, hourly_rate });
    const mean = async (q: string) =>
      (await report("workers", `metrics=avg(hourly_rate)&q=${q}`))[0]!["avg(hourly_rate)"];
    expect(await mean("Evenlow")).toBe("0.00");
    expect(await mean("Evenhigh")).toBe("0.02");
    expect(await mean("Quarter")).toBe("0.02");
  });
});

describe("erp <resource> aggregate", () => {
  const args = ["--group-by", "status,trade_id", "--metrics", "count,sum(hourly_rate)"];

  test("prints the report as JSON, as CSV with the group keys as the first columns, and as a table", async () => {
    const cli = erpFor(suite.server.baseUrl, token);
    const answer = await report(
      "workers",
      `group_by=status,trade_id&metrics=count,sum(hourly_rate)&status=ACTIVE`,
    );
    const json = await cli([
      "workers",
      "aggregate",
      ...args,
      "--status",
      "ACTIVE",
      "--output",
      "json",
    ]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(answer);
    const csv = await cli([
      "workers",
      "aggregate",
      ...args,
      "--status",
      "ACTIVE",
      "--output",
      "csv",
    ]);
    expect(csv.code, csv.stderr).toBe(0);
    const lines = csv.stdout.trim().split("\r\n");
    expect(lines[0]).toBe("status,trade_id,count,sum(hourly_rate)");
    expect(lines.slice(1)).toEqual(
      answer.map((row) =>
        [row.group.status, row.group.trade_id ?? "", row.count, row["sum(hourly_rate)"]].join(","),
      ),
    );
    const table = await cli(["workers", "aggregate", ...args, "--output", "table"]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain("SUM(HOURLY_RATE)");
  });

  test("erp rentals aggregate reports one piece of equipment's rentals", async () => {
    const equipment = await create(api, "/v1/equipment", { name: "Hoist", daily_rate: "90.00" });
    for (const daily_rate of ["10.00", "20.50"])
      await create(api, `/v1/equipment/${equipment}/rentals`, {
        project_id: projects[0]!.id,
        start_date: "2026-05-01",
        daily_rate,
      });
    const cli = erpFor(suite.server.baseUrl, token);
    const out = await cli([
      "rentals",
      "aggregate",
      String(equipment),
      "--group-by",
      "billed",
      "--metrics",
      "count,sum(daily_rate)",
      "--output",
      "json",
    ]);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual([
      { group: { billed: false }, count: 2, "sum(daily_rate)": "30.50" },
    ]);
  });

  test("a name the report does not take exits with the API's invalid_query", async () => {
    const bad = await erpFor(
      suite.server.baseUrl,
      token,
    )(["workers", "aggregate", "--group-by", "name"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("name");
  });
});
