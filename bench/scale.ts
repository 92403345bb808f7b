// The scale leg of `bun run bench`: a company of 1,000,000 workers beside one of 20,000 on the same
// server. For each: the median and p99 latency of its first page (`GET /v1/workers?limit=100`, with the
// total) and of a page near its end (after_id, no total), and a full `erp export workers --format
// ndjson` in rows/s. Goals: the large company's first page within 1.5x of the small one's, its export
// at least 0.5x the small one's rows/s. Workers are seeded straight into the database.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createCompany, recountLiveRecords, type DatabaseHandle } from "@erp/server/admin";

const ROOT = path.resolve(import.meta.dir, "..");
const SEED_ROWS_PER_INSERT = 5_000;

export interface ScaleSizes {
  large: number;
  small: number;
  /** Timed requests per page measurement (after a few untimed ones). */
  requests: number;
}

export const SCALE_SIZES: Record<"full" | "quick", ScaleSizes> = {
  full: { large: 1_000_000, small: 20_000, requests: 50 },
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
}

const round = (value: number, digits = 1): number =>
  Math.round(value * 10 ** digits) / 10 ** digits;
const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** `count` workers of the company, in multi-row INSERTs (their text built here: every value is ours). */
async function seedWorkers(db: DatabaseHandle, companyId: number, count: number): Promise<number> {
  const started = performance.now();
  const at = new Date().toISOString().slice(0, 23).replace("T", " ");
  for (let first = 0; first < count; first += SEED_ROWS_PER_INSERT) {
    const rows: string[] = [];
    for (let i = first; i < Math.min(count, first + SEED_ROWS_PER_INSERT); i++) {
      rows.push(
        `(${companyId}, 'Scale worker ${i}', 'scale${i}@example.com', ` +
          `'${i % 10 === 0 ? "INACTIVE" : "ACTIVE"}', '${at}', '${at}')`,
      );
    }
    await db.pool.query(
      `INSERT INTO workers (company_id, name, email, status, created_at, updated_at) VALUES ${rows.join(", ")}`,
    );
  }
  // Rows loaded around the API: the counters its writes keep are set from them once.
  await recountLiveRecords(db.db, companyId);
  return (performance.now() - started) / 1000;
}

/** Median and p99 milliseconds of `path` (status and body read), after a few untimed requests. */
async function latency(
  baseUrl: string,
  token: string,
  path: string,
  requests: number,
): Promise<{ median: number; p99: number }> {
  const send = async (): Promise<number> => {
    const started = performance.now();
    const response = await fetch(`${baseUrl}${path}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status}`);
    return performance.now() - started;
  };
  for (let i = 0; i < 3; i++) await send();
  const timings: number[] = [];
  for (let i = 0; i < requests; i++) timings.push(await send());
  const sorted = [...timings].sort((a, b) => a - b);
  const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!;
  return { median: round(median(timings), 2), p99: round(p99, 2) };
}

/** `erp export workers --format ndjson` as a user runs it: the rows it wrote to stdout and how long it took. */
async function exportWorkers(
  baseUrl: string,
  token: string,
): Promise<{ rows: number; seconds: number; exitCode: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), "erp-bench-export-"));
  try {
    const started = performance.now();
    const child = Bun.spawn(
      [
        process.execPath,
        path.join(ROOT, "cli/src/main.ts"),
        "export",
        "workers",
        "--format",
        "ndjson",
      ],
      {
        cwd: dir,
        env: {
          ...process.env,
          ERP_BASE_URL: baseUrl,
          ERP_TOKEN: token,
          XDG_STATE_HOME: dir,
          XDG_CONFIG_HOME: dir,
        },
        stdout: "pipe",
        stderr: "ignore",
      },
    );
    let rows = 0;
    const reader = child.stdout.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read())
      for (const byte of read.value) if (byte === 10) rows++;
    const exitCode = await child.exited;
    return { rows, seconds: (performance.now() - started) / 1000, exitCode };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measureCompany(
  db: DatabaseHandle,
  baseUrl: string,
  workers: number,
  requests: number,
): Promise<CompanyScale> {
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
  const firstPage = await latency(baseUrl, company.token, "/v1/workers?limit=100", requests);
  const deepPage = await latency(
    baseUrl,
    company.token,
    `/v1/workers?limit=100&after_id=${deepAfterId}&total=false`,
    requests,
  );
  const exported = await exportWorkers(baseUrl, company.token);
  return {
    workers,
    seedSeconds: round(seedSeconds),
    firstPageMs: firstPage.median,
    firstPageP99Ms: firstPage.p99,
    deepPageMs: deepPage.median,
    deepPageP99Ms: deepPage.p99,
    exportedRows: exported.rows,
    exportSeconds: round(exported.seconds, 2),
    exportRowsPerSecond: Math.round(exported.rows / exported.seconds),
    exportExitCode: exported.exitCode,
  };
}

export async function scaleLeg(
  db: DatabaseHandle,
  baseUrl: string,
  sizes: ScaleSizes,
): Promise<ScaleResult> {
  const small = await measureCompany(db, baseUrl, sizes.small, sizes.requests);
  const large = await measureCompany(db, baseUrl, sizes.large, sizes.requests);
  return {
    small,
    large,
    firstPageRatio: round(large.firstPageMs / small.firstPageMs, 2),
    exportRatio: round(large.exportRowsPerSecond / small.exportRowsPerSecond, 2),
  };
}

/** The leg's lines of the bench report. */
export function describeScale(result: ScaleResult): string {
  const line = (c: CompanyScale) =>
    `${c.workers.toLocaleString("en")} workers (seeded in ${c.seedSeconds} s): ` +
    `first page ${c.firstPageMs} ms (p99 ${c.firstPageP99Ms}), ` +
    `page at 99% by after_id ${c.deepPageMs} ms (p99 ${c.deepPageP99Ms}), ` +
    `export ${c.exportedRows.toLocaleString("en")} rows in ${c.exportSeconds} s = ` +
    `${c.exportRowsPerSecond.toLocaleString("en")} rows/s (exit ${c.exportExitCode})`;
  return [
    `Scale, ${line(result.small)}`,
    `Scale, ${line(result.large)}`,
    `Scale: large/small first page ${result.firstPageRatio}x (target ≤ 1.5), export rows/s ` +
      `${result.exportRatio}x (target ≥ 0.5)`,
  ].join("\n");
}
