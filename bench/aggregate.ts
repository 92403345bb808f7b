// The reports leg of `bun run bench`: a company of 1,000,000 workers (trades, hourly rates and
// statuses spread among them), and the median and p99 latency of three reports a dashboard asks
// for: the count by status, the count by trade, and the sum of hourly_rate by trade. Goal: each
// within 1 s. It prints the plan the database chose for each statement (EXPLAIN: the index it reads,
// whether it reads that index alone), named in bench/README.md. Workers are seeded straight into
// the database. Alone: `bun bench/aggregate.ts [--quick]`, on a throw-away database.
import { createCompany, recountLiveRecords, type DatabaseHandle } from "@erp/server/admin";
import { explainReport, reportFields, reportPlan } from "@erp/server/aggregates";
import { definitionNamed } from "@erp/server/registry";
import { runLegAlone } from "./throw-away-database.ts";

const SEED_ROWS_PER_INSERT = 5_000;

export const AGGREGATE_SIZES = {
  full: { workers: 1_000_000, requests: 15 },
  quick: { workers: 3_000, requests: 3 },
} as const;

/** The reports timed: their query, by name. */
const REPORTS = {
  "count by status": { groupBy: ["status"], metrics: ["count"] },
  "count by trade": { groupBy: ["trade_id"], metrics: ["count"] },
  "sum(hourly_rate) by trade": { groupBy: ["trade_id"], metrics: ["sum(hourly_rate)"] },
} as const;

export interface ReportTiming {
  report: string;
  medianMs: number;
  p99Ms: number;
  groups: number;
  /** EXPLAIN's key and Extra: the index read, and `Using index` when it is read alone. */
  plan: string;
}

export interface AggregateResult {
  workers: number;
  seedSeconds: number;
  reports: ReportTiming[];
}

const round = (value: number): number => Math.round(value * 10) / 10;

/** `count` workers with a trade (one in twenty without), a rate and a status, in multi-row INSERTs. */
async function seedWorkers(db: DatabaseHandle, companyId: number, count: number): Promise<number> {
  const started = performance.now();
  const [trades] = await db.pool.query("SELECT id FROM trades WHERE company_id = ?", [companyId]);
  const tradeIds = (trades as { id: number }[]).map((row) => Number(row.id));
  const at = new Date().toISOString().slice(0, 23).replace("T", " ");
  for (let first = 0; first < count; first += SEED_ROWS_PER_INSERT) {
    const rows: string[] = [];
    for (let i = first; i < Math.min(count, first + SEED_ROWS_PER_INSERT); i++) {
      const trade = i % 20 === 0 ? "NULL" : String(tradeIds[(i * 7) % tradeIds.length]);
      const rate = `${20 + ((i * 37) % 80)}.${String((i * 13) % 100).padStart(2, "0")}`;
      rows.push(
        `(${companyId}, 'Report worker ${i}', ${trade}, ${rate}, ` +
          `'${i % 10 === 0 ? "INACTIVE" : "ACTIVE"}', '${at}', '${at}')`,
      );
    }
    await db.pool.query(
      "INSERT INTO workers (company_id, name, trade_id, hourly_rate, status, created_at, updated_at) " +
        `VALUES ${rows.join(", ")}`,
    );
  }
  await recountLiveRecords(db.db, companyId);
  return (performance.now() - started) / 1000;
}

/** The plan of each report's statement, as the server would send it for this company. */
async function planOf(
  db: DatabaseHandle,
  companyId: number,
  query: { groupBy: readonly string[]; metrics: readonly string[] },
): Promise<string> {
  const def = definitionNamed("workers");
  const plan = reportPlan(reportFields(def), query.groupBy, query.metrics);
  const rows = await explainReport(db.db, def, { companyId }, plan, { filters: {} });
  return (rows as { table: string; key: string | null; Extra: string | null }[])
    .map((row) => `${row.table}: key ${row.key ?? "none"}; ${row.Extra ?? ""}`)
    .join(" | ");
}

export async function aggregateLeg(
  db: DatabaseHandle,
  baseUrl: string,
  sizes: { workers: number; requests: number },
): Promise<AggregateResult> {
  const company = await createCompany(db.db, {
    name: `Reports ${sizes.workers}`,
    plan: "enterprise",
    addons: ["api"],
  });
  const seedSeconds = await seedWorkers(db, company.company_id, sizes.workers);
  await db.pool.query("ANALYZE TABLE workers");
  const reports: ReportTiming[] = [];
  for (const [report, query] of Object.entries(REPORTS)) {
    const path =
      `/v1/workers/aggregate?group_by=${query.groupBy.join(",")}` +
      `&metrics=${query.metrics.join(",")}`;
    const times: number[] = [];
    let groups = 0;
    // One untimed request first: the statement's pages come into the buffer pool.
    for (let i = 0; i <= sizes.requests; i++) {
      const started = performance.now();
      const response = await fetch(`${baseUrl}${path}`, {
        headers: { authorization: `Bearer ${company.token}` },
      });
      const body = (await response.json()) as { meta: { groups: number } };
      if (response.status !== 200) throw new Error(`GET ${path}: ${response.status}`);
      if (i > 0) times.push(performance.now() - started);
      groups = body.meta.groups;
    }
    const sorted = [...times].sort((a, b) => a - b);
    reports.push({
      report,
      medianMs: round(sorted[Math.floor(sorted.length / 2)]!),
      p99Ms: round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!),
      groups,
      plan: await planOf(db, company.company_id, query),
    });
  }
  return { workers: sizes.workers, seedSeconds: round(seedSeconds), reports };
}

/** The leg's lines of the bench report. */
export function describeAggregate(result: AggregateResult): string {
  return [
    `Reports, ${result.workers.toLocaleString("en")} workers (seeded in ${result.seedSeconds} s):`,
    ...result.reports.map(
      (r) =>
        `  ${r.report}: ${r.medianMs} ms (p99 ${r.p99Ms}; target ≤ 1000), ${r.groups} groups; ` +
        `plan ${r.plan}`,
    ),
  ].join("\n");
}

if (import.meta.main) {
  const sizes = process.argv.includes("--quick") ? AGGREGATE_SIZES.quick : AGGREGATE_SIZES.full;
  await runLegAlone("erp_bench_aggregate", async (db, baseUrl) =>
    describeAggregate(await aggregateLeg(db, baseUrl, sizes)),
  );
}
