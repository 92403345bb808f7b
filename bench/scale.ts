// The scale leg of `bun run bench`: a company of 1,000,000 workers beside one of 20,000 on the same
// server. For each: the median and p99 latency of its first page (`GET /v1/workers?limit=100`, with the
// total) and of a page near its end (after_id, no total), of its first page sorted by name and of the
// sorted page at 99% (reached by following the sorted list's `after` cursors, as an app pages), of a
// page of the workers hired in one year (`hired_on[gte]`/`[lt]`), and a full `erp export workers
// --format ndjson` in rows/s. Goals: the large company's first page within 1.5x of the small one's,
// its sorted page at 99% within 1.5x of its first sorted page, its one-year page within 1.5x of its
// unfiltered first page, its export at least 0.5x the small one's rows/s. Workers are seeded straight
// into the database, both companies first; then the pages are timed taking turns (load on a shared
// machine falls on each alike). Alone: `bun bench/scale.ts [--quick]`, on a throw-away database.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createCompany, recountLiveRecords, type DatabaseHandle } from "@erp/server/admin";
import { runLegAlone } from "./throw-away-database.ts";
import { pageLatencies, spawnCli } from "./timing.ts";

const SEED_ROWS_PER_INSERT = 5_000;

export interface ScaleSizes {
  large: number;
  small: number;
  /** Timed requests per page measurement (after a few untimed ones). */
  requests: number;
}

export const SCALE_SIZES: Record<"full" | "quick", ScaleSizes> = {
  full: { large: 1_000_000, small: 20_000, requests: 100 },
  quick: { large: 3_000, small: 1_000, requests: 10 },
};

export interface CompanyScale {
  workers: number;
  seedSeconds: number;
  /** Medians and p99s of the timed requests, ms. */
  firstPageMs: number;
  firstPageP99Ms: number;
  deepPageMs: number;
  deepPageP99Ms: number;
  /** `sort=name`, first page and the page at 99% (its cursor reached by paging the sorted list). */
  sortedFirstPageMs: number;
  sortedFirstPageP99Ms: number;
  sortedDeepPageMs: number;
  sortedDeepPageP99Ms: number;
  /** Requests and seconds the walk to the sorted list's 99% took. */
  sortedWalkPages: number;
  sortedWalkSeconds: number;
  /** The workers hired in one year: `hired_on[gte]=…&hired_on[lt]=…`, no total. */
  rangePageMs: number;
  rangePageP99Ms: number;
  exportedRows: number;
  exportSeconds: number;
  exportRowsPerSecond: number;
  exportExitCode: number;
}

export interface ScaleResult {
  small: CompanyScale;
  large: CompanyScale;
  /** Large first page's median over the small one's: goal ≤ 1.5. */
  firstPageRatio: number;
  /** Large export's rows/s over the small one's: goal ≥ 0.5. */
  exportRatio: number;
  /** Large company's sorted page at 99% over its first sorted page: goal ≤ 1.5. */
  sortedDeepRatio: number;
  /** Large company's one-year page over its unfiltered first page: goal ≤ 1.5. */
  rangeRatio: number;
}

/** The year of hires the range page asks for; seeded hires spread over ten years from 2016. */
const RANGE = "hired_on[gte]=2020-01-01&hired_on[lt]=2021-01-01";
const HIRED_FROM = Date.UTC(2016, 0, 1);
const DAY_MS = 86_400_000;

const round = (value: number, digits = 1): number =>
  Math.round(value * 10 ** digits) / 10 ** digits;

/** `count` workers of the company, in multi-row INSERTs (their text built here: every value is ours). */
async function seedWorkers(db: DatabaseHandle, companyId: number, count: number): Promise<number> {
  const started = performance.now();
  const at = new Date().toISOString().slice(0, 23).replace("T", " ");
  for (let first = 0; first < count; first += SEED_ROWS_PER_INSERT) {
    const rows: string[] = [];
    for (let i = first; i < Math.min(count, first + SEED_ROWS_PER_INSERT); i++) {
      // Hire dates scattered over ten years, so a year's hires are spread through the id order.
      const hired = new Date(HIRED_FROM + ((i * 7919) % 3652) * DAY_MS).toISOString().slice(0, 10);
      rows.push(
        `(${companyId}, 'Scale worker ${i}', 'scale${i}@example.com', '${hired}', ` +
          `'${i % 10 === 0 ? "INACTIVE" : "ACTIVE"}', '${at}', '${at}')`,
      );
    }
    await db.pool.query(
      "INSERT INTO workers (company_id, name, email, hired_on, status, created_at, updated_at) " +
        `VALUES ${rows.join(", ")}`,
    );
  }
  // Rows loaded around the API: the counters its writes keep are set from them once.
  await recountLiveRecords(db.db, companyId);
  return (performance.now() - started) / 1000;
}

/** Median and p99 of a request's milliseconds. */
type Latency = { median: number; p99: number };

/**
 * Median and p99 milliseconds of each page (status and body read), after a few untimed
 * requests: the pages take turns, so a load that comes and goes on the machine falls on each alike
 * and their ratios hold.
 */
async function latencies(
  baseUrl: string,
  pages: { token: string; path: string }[],
  requests: number,
): Promise<Latency[]> {
  return (await pageLatencies(baseUrl, pages, requests)).map(({ medianMs, p99Ms }) => ({
    median: round(medianMs, 2),
    p99: round(p99Ms, 2),
  }));
}

/**
 * The `after` cursor of the page at `fraction` of a sorted list, reached as an app reaches it: page
 * after page, each asking for the one after the previous page's meta.next_cursor.
 */
async function sortedCursorAt(
  baseUrl: string,
  token: string,
  list: string,
  records: number,
  fraction: number,
): Promise<{ cursor: string; pages: number; seconds: number }> {
  const started = performance.now();
  const pages = Math.floor((records * fraction) / 100);
  let cursor: string | undefined;
  for (let page = 0; page < pages; page++) {
    const after = cursor === undefined ? "" : `&after=${encodeURIComponent(cursor)}`;
    const response = await fetch(`${baseUrl}${list}&limit=100&total=false${after}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await response.json()) as { meta: { next_cursor?: string } };
    if (response.status !== 200 || body.meta.next_cursor === undefined)
      throw new Error(`GET ${list}: ${response.status} at page ${page}, no next_cursor`);
    cursor = body.meta.next_cursor;
  }
  if (cursor === undefined) throw new Error(`${records} records make no page at ${fraction}`);
  return { cursor, pages, seconds: (performance.now() - started) / 1000 };
}

/** `erp export workers --format ndjson` as a user runs it: the rows it wrote to stdout and how long it took. */
async function exportWorkers(
  baseUrl: string,
  token: string,
): Promise<{ rows: number; seconds: number; exitCode: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), "erp-bench-export-"));
  try {
    const started = performance.now();
    const child = spawnCli(dir, baseUrl, token, ["export", "workers", "--format", "ndjson"], {
      stdout: "pipe",
    });
    let rows = 0;
    const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read())
      for (const byte of read.value) if (byte === 10) rows++;
    const exitCode = await child.exited;
    return { rows, seconds: (performance.now() - started) / 1000, exitCode };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A seeded company and the pages the leg times in it. */
interface Prepared {
  workers: number;
  token: string;
  seedSeconds: number;
  walk: { cursor: string; pages: number; seconds: number };
  /** First page, after_id at 99%, first sorted page, sorted page at 99%, one year of hires. */
  paths: string[];
}

async function prepareCompany(
  db: DatabaseHandle,
  baseUrl: string,
  workers: number,
): Promise<Prepared> {
  const company = await createCompany(db.db, {
    name: `Scale ${workers}`,
    plan: "enterprise",
    addons: ["api"],
  });
  const seedSeconds = await seedWorkers(db, company.company_id, workers);
  await db.pool.query("ANALYZE TABLE workers");
  const [ids] = await db.pool.query(
    "SELECT id FROM workers WHERE company_id = ? ORDER BY id LIMIT 1 OFFSET ?",
    [company.company_id, Math.floor(workers * 0.99)],
  );
  const deepAfterId = Number((ids as { id: number }[])[0]!.id);
  const sorted = "/v1/workers?sort=name";
  const walk = await sortedCursorAt(baseUrl, company.token, sorted, workers, 0.99);
  return {
    workers,
    token: company.token,
    seedSeconds,
    walk,
    paths: [
      "/v1/workers?limit=100",
      `/v1/workers?limit=100&after_id=${deepAfterId}&total=false`,
      `${sorted}&limit=100&total=false`,
      `${sorted}&limit=100&total=false&after=${encodeURIComponent(walk.cursor)}`,
      `/v1/workers?limit=100&total=false&${RANGE}`,
    ],
  };
}

async function measureCompany(
  baseUrl: string,
  prepared: Prepared,
  timed: Latency[],
): Promise<CompanyScale> {
  const [firstPage, deepPage, sortedFirst, sortedDeep, rangePage] = timed as [
    Latency,
    Latency,
    Latency,
    Latency,
    Latency,
  ];
  const exported = await exportWorkers(baseUrl, prepared.token);
  return {
    workers: prepared.workers,
    seedSeconds: round(prepared.seedSeconds),
    firstPageMs: firstPage.median,
    firstPageP99Ms: firstPage.p99,
    deepPageMs: deepPage.median,
    deepPageP99Ms: deepPage.p99,
    sortedFirstPageMs: sortedFirst.median,
    sortedFirstPageP99Ms: sortedFirst.p99,
    sortedDeepPageMs: sortedDeep.median,
    sortedDeepPageP99Ms: sortedDeep.p99,
    sortedWalkPages: prepared.walk.pages,
    sortedWalkSeconds: round(prepared.walk.seconds, 1),
    rangePageMs: rangePage.median,
    rangePageP99Ms: rangePage.p99,
    exportedRows: exported.rows,
    exportSeconds: round(exported.seconds, 2),
    exportRowsPerSecond: Math.round(exported.rows / exported.seconds),
    exportExitCode: exported.exitCode,
  };
}

/** Both companies are seeded first, then their ten pages are timed taking turns, then exported. */
export async function scaleLeg(
  db: DatabaseHandle,
  baseUrl: string,
  sizes: ScaleSizes,
): Promise<ScaleResult> {
  const companies = [
    await prepareCompany(db, baseUrl, sizes.small),
    await prepareCompany(db, baseUrl, sizes.large),
  ];
  const timed = await latencies(
    baseUrl,
    companies.flatMap(({ token, paths }) => paths.map((path) => ({ token, path }))),
    sizes.requests,
  );
  const small = await measureCompany(baseUrl, companies[0]!, timed.slice(0, 5));
  const large = await measureCompany(baseUrl, companies[1]!, timed.slice(5));
  return {
    small,
    large,
    firstPageRatio: round(large.firstPageMs / small.firstPageMs, 2),
    exportRatio: round(large.exportRowsPerSecond / small.exportRowsPerSecond, 2),
    sortedDeepRatio: round(large.sortedDeepPageMs / large.sortedFirstPageMs, 2),
    rangeRatio: round(large.rangePageMs / large.firstPageMs, 2),
  };
}

/** The leg's lines of the bench report. */
export function describeScale(result: ScaleResult): string {
  const line = (c: CompanyScale) =>
    `${c.workers.toLocaleString("en")} workers (seeded in ${c.seedSeconds} s): ` +
    `first page ${c.firstPageMs} ms (p99 ${c.firstPageP99Ms}), ` +
    `page at 99% by after_id ${c.deepPageMs} ms (p99 ${c.deepPageP99Ms}), ` +
    `sort=name first page ${c.sortedFirstPageMs} ms (p99 ${c.sortedFirstPageP99Ms}), ` +
    `at 99% by cursor ${c.sortedDeepPageMs} ms (p99 ${c.sortedDeepPageP99Ms}; reached in ` +
    `${c.sortedWalkPages.toLocaleString("en")} pages, ${c.sortedWalkSeconds} s), ` +
    `one year of hired_on ${c.rangePageMs} ms (p99 ${c.rangePageP99Ms}), ` +
    `export ${c.exportedRows.toLocaleString("en")} rows in ${c.exportSeconds} s = ` +
    `${c.exportRowsPerSecond.toLocaleString("en")} rows/s (exit ${c.exportExitCode})`;
  return [
    `Scale, ${line(result.small)}`,
    `Scale, ${line(result.large)}`,
    `Scale: large/small first page ${result.firstPageRatio}x (target ≤ 1.5), export rows/s ` +
      `${result.exportRatio}x (target ≥ 0.5)`,
    `Scale, large: sort=name at 99%/first sorted page ${result.sortedDeepRatio}x (target ≤ 1.5), ` +
      `one year of hired_on/unfiltered first page ${result.rangeRatio}x (target ≤ 1.5)`,
  ].join("\n");
}

if (import.meta.main) {
  const sizes = process.argv.includes("--quick") ? SCALE_SIZES.quick : SCALE_SIZES.full;
  await runLegAlone("erp_bench_scale", async (db, baseUrl) =>
    describeScale(await scaleLeg(db, baseUrl, sizes)),
  );
}
