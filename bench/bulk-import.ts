// The bulk-import leg of `bun run bench`: the CLI importing a CSV of workers into our server, beside
// the least a bulk load can cost (the raw server's batch route: the same rows as one 500-row INSERT
// per request into the workers table itself, so the same columns and indexes, sent one request at a
// time); then the same records exported, 10% of the rows edited and imported back with `--update`,
// at a rate compared with the create import's; and the database statements and latency of one
// 500-item batch of ours, for creates, upserts and updates by id (MariaDB's `Questions` counter
// over several batches).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { DatabaseHandle } from "@erp/server/admin";
import { spawnCli } from "./timing.ts";

const BATCH = 500;

export interface BulkImport {
  rows: number;
  /** The CLI into our server: rows/s, rows in the database, its own peak RSS, exit code. */
  cli: {
    rowsPerSecond: number;
    seconds: number;
    imported: number;
    rssMb: number;
    exitCode: number;
  };
  /** The raw server's batch route, the same rows, 500 per INSERT, one request at a time. */
  raw: { rowsPerSecond: number; seconds: number; batchP50Ms: number; batchP99Ms: number };
  ratio: number;
  /** `erp import --update` of the export with 10% of its rows edited: rows/s, records changed, exit code. */
  update: {
    rowsPerSecond: number;
    seconds: number;
    changed: number;
    edited: number;
    exitCode: number;
  };
  /** The update import's rate over the create import's. */
  updateRatio: number;
  /** Statements per 500-item batch of ours (database counter over the batches / batches). */
  statements: { create: number; upsert: number; update: number };
  /** Latency of those batches of ours, one at a time, ms. */
  batchLatency: Record<"create" | "upsert" | "update", { p50Ms: number; p99Ms: number }>;
}

/** Row i of the file (and of the raw baseline's batches). */
const worker = (i: number): { name: string; email: string; phone: string } => ({
  name: `Imported ${i}`,
  email: `imported${i}@example.com`,
  phone: `+1 555 ${String(i).padStart(4, "0")}`,
});

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0);
};

async function questions(db: DatabaseHandle): Promise<number> {
  const [rows] = await db.pool.query("SHOW GLOBAL STATUS LIKE 'Questions'");
  return Number((rows as { Value: string }[])[0]!.Value);
}

async function countWorkers(db: DatabaseHandle, companyId: number): Promise<number> {
  const [rows] = await db.pool.query(
    "SELECT COUNT(*) AS n FROM workers WHERE company_id = ? AND deleted_at IS NULL",
    [companyId],
  );
  return Number((rows as { n: number }[])[0]!.n);
}

/** The CLI, as a user runs it, in `dir` (its journal and config there too). */
async function cliImport(
  db: DatabaseHandle,
  baseUrl: string,
  company: { company_id: number; token: string },
  rows: number,
): Promise<BulkImport["cli"]> {
  const dir = mkdtempSync(path.join(tmpdir(), "erp-bench-import-"));
  try {
    const file = path.join(dir, "workers.csv");
    const lines = ["name,email,phone"];
    for (let i = 0; i < rows; i++) {
      const { name, email, phone } = worker(i);
      lines.push(`${name},${email},${phone}`);
    }
    writeFileSync(file, `${lines.join("\n")}\n`);
    const started = performance.now();
    const child = spawnCli(dir, baseUrl, company.token, ["import", "workers", file]);
    const exitCode = await child.exited;
    const seconds = (performance.now() - started) / 1000;
    const rssMb = Math.round((child.resourceUsage()?.maxRSS ?? 0) / 1024 / 1024);
    return {
      rowsPerSecond: Math.round(rows / seconds),
      seconds: Math.round(seconds * 10) / 10,
      imported: await countWorkers(db, company.company_id),
      rssMb,
      exitCode,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The company's workers exported as CSV, every tenth row's phone edited, imported back with --update. */
async function cliUpdateImport(
  db: DatabaseHandle,
  baseUrl: string,
  company: { company_id: number; token: string },
): Promise<BulkImport["update"]> {
  const dir = mkdtempSync(path.join(tmpdir(), "erp-bench-update-"));
  try {
    const file = path.join(dir, "workers.csv");
    const exporter = spawnCli(
      dir,
      baseUrl,
      company.token,
      ["export", "workers", "--format", "csv"],
      { stdout: "pipe" },
    );
    const [header, ...lines] = (await new Response(exporter.stdout).text()).trimEnd().split("\n");
    await exporter.exited;
    const phone = header!.split(",").indexOf("phone");
    let edited = 0;
    const rows = lines.map((line, i) => {
      if (i % 10 !== 0) return line;
      edited += 1;
      const cells = line.split(",");
      cells[phone] = `${cells[phone]} ext. 9`;
      return cells.join(",");
    });
    writeFileSync(file, `${[header, ...rows].join("\n")}\n`);
    const before = await updatedEvents(db, company.company_id);
    const started = performance.now();
    const exitCode = await spawnCli(dir, baseUrl, company.token, [
      "import",
      "workers",
      file,
      "--update",
    ]).exited;
    const seconds = (performance.now() - started) / 1000;
    return {
      rowsPerSecond: Math.round(lines.length / seconds),
      seconds: Math.round(seconds * 10) / 10,
      changed: (await updatedEvents(db, company.company_id)) - before,
      edited,
      exitCode,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function updatedEvents(db: DatabaseHandle, companyId: number): Promise<number> {
  const [rows] = await db.pool.query(
    "SELECT COUNT(*) AS n FROM events WHERE company_id = ? AND type = 'worker.updated'",
    [companyId],
  );
  return Number((rows as { n: number }[])[0]!.n);
}

/** The same rows through the raw server's batch route, one 500-row INSERT per request, one request at a time. */
async function rawImport(
  rawBaseUrl: string,
  token: string,
  rows: number,
): Promise<BulkImport["raw"]> {
  const bodies: string[] = [];
  for (let first = 0; first < rows; first += BATCH) {
    bodies.push(
      JSON.stringify({
        items: Array.from({ length: Math.min(BATCH, rows - first) }, (_, offset) =>
          worker(first + offset),
        ),
      }),
    );
  }
  const started = performance.now();
  const latencies: number[] = [];
  for (const body of bodies) {
    const sent = performance.now();
    const response = await fetch(`${rawBaseUrl}/v1/workers/batch`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
    });
    if (response.status !== 200) throw new Error(`raw batch answered ${response.status}`);
    await response.arrayBuffer();
    latencies.push(performance.now() - sent);
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    rowsPerSecond: Math.round(rows / seconds),
    seconds: Math.round(seconds * 10) / 10,
    batchP50Ms: percentile(latencies, 0.5),
    batchP99Ms: percentile(latencies, 0.99),
  };
}

/**
 * Statements per batch: `batches` batches of 500 creates, the same items again as upserts
 * (updates), then updates by id.
 */
async function statementsPerBatch(
  db: DatabaseHandle,
  baseUrl: string,
  token: string,
  batches: number,
): Promise<{ statements: BulkImport["statements"]; latency: BulkImport["batchLatency"] }> {
  const items = (round: number, changed: boolean) =>
    Array.from({ length: BATCH }, (_, i) => ({
      name: `Counted ${round}-${i}${changed ? " renamed" : ""}`,
      email: `counted${round}-${i}@example.com`,
      external_id: `counted-${round}-${i}`,
    }));
  const ids = new Map<number, number[]>();
  const send = async (round: number, upsert: boolean): Promise<void> => {
    const list = items(round, upsert);
    const response = await fetch(`${baseUrl}/v1/workers/batch`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        "idempotency-key": crypto.randomUUID(),
      },
      body: JSON.stringify({
        items: list,
        on_conflict: upsert ? "update" : "error",
        item_keys: list.map(() => crypto.randomUUID()),
      }),
    });
    if (response.status !== 200) throw new Error(`batch answered ${response.status}`);
    const { data } = (await response.json()) as {
      data: { failed: number; results: { id: number }[] };
    };
    if (data.failed > 0) throw new Error(`${data.failed} items of a counted batch were refused`);
    ids.set(
      round,
      data.results.map((result) => result.id),
    );
  };
  const update = async (round: number): Promise<void> => {
    const list = ids.get(round)!;
    const response = await fetch(`${baseUrl}/v1/workers/batch`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        "idempotency-key": crypto.randomUUID(),
      },
      body: JSON.stringify({
        operation: "update",
        items: list.map((id, i) => ({ id, phone: `+1 555 ${round}-${i}` })),
        item_keys: list.map(() => crypto.randomUUID()),
      }),
    });
    if (response.status !== 200) throw new Error(`update batch answered ${response.status}`);
    const { data } = (await response.json()) as { data: { updated: number } };
    if (data.updated !== list.length) throw new Error("a counted update batch changed too little");
  };
  const latencies = { create: [] as number[], upsert: [] as number[], update: [] as number[] };
  const measure = async (
    kind: keyof typeof latencies,
    send: (round: number) => Promise<void>,
  ): Promise<number> => {
    const before = await questions(db);
    for (let round = 0; round < batches; round++) {
      const sent = performance.now();
      await send(round);
      latencies[kind].push(performance.now() - sent);
    }
    // One statement of ours (SHOW STATUS) falls inside the window.
    return Math.round((((await questions(db)) - before - 1) / batches) * 10) / 10;
  };
  const statements = {
    create: await measure("create", (round) => send(round, false)),
    upsert: await measure("upsert", (round) => send(round, true)),
    update: await measure("update", update),
  };
  const of = (values: number[]) => ({
    p50Ms: percentile(values, 0.5),
    p99Ms: percentile(values, 0.99),
  });
  return {
    statements,
    latency: {
      create: of(latencies.create),
      upsert: of(latencies.upsert),
      update: of(latencies.update),
    },
  };
}

export async function bulkImport(
  db: DatabaseHandle,
  target: { baseUrl: string; company: { company_id: number; token: string } },
  raw: { baseUrl: string; token: string },
  counted: { company: { company_id: number; token: string } },
  rows: number,
  quick: boolean,
): Promise<BulkImport> {
  const rawRun = await rawImport(raw.baseUrl, raw.token, rows);
  const cli = await cliImport(db, target.baseUrl, target.company, rows);
  const update = await cliUpdateImport(db, target.baseUrl, target.company);
  const batches = await statementsPerBatch(
    db,
    target.baseUrl,
    counted.company.token,
    quick ? 2 : 10,
  );
  return {
    rows,
    cli,
    raw: rawRun,
    ratio: Math.round((cli.rowsPerSecond / Math.max(1, rawRun.rowsPerSecond)) * 100) / 100,
    update,
    updateRatio: Math.round((update.rowsPerSecond / Math.max(1, cli.rowsPerSecond)) * 100) / 100,
    statements: batches.statements,
    batchLatency: batches.latency,
  };
}

export function describeBulkImport(result: BulkImport): string {
  const latency = (kind: keyof BulkImport["batchLatency"]) =>
    `${result.batchLatency[kind].p50Ms}/${result.batchLatency[kind].p99Ms} ms`;
  return [
    `CLI import of ${result.rows.toLocaleString("en")} workers: ` +
      `${result.cli.imported.toLocaleString("en")} in the database, ` +
      `${result.cli.rowsPerSecond} rows/s in ${result.cli.seconds} s, CLI max RSS ` +
      `${result.cli.rssMb} MB, exit ${result.cli.exitCode}`,
    `  raw 500-row INSERTs into workers, one request at a time: ${result.raw.rowsPerSecond} rows/s ` +
      `(per batch p50/p99 ${result.raw.batchP50Ms}/${result.raw.batchP99Ms} ms); ratio ${result.ratio} (target ≥ 0.30)`,
    `  export → 10% of rows edited → import --update: ` +
      `${result.update.changed.toLocaleString("en")} of ` +
      `${result.update.edited.toLocaleString("en")} edited records changed, ` +
      `${result.update.rowsPerSecond} rows/s in ${result.update.seconds} s, exit ` +
      `${result.update.exitCode}; ${result.updateRatio} of the create import's rate (target ` +
      `≥ 0.5)`,
    `  statements per 500-item batch: create ${result.statements.create} (target ≤ 12), upsert ` +
      `${result.statements.upsert} (target ≤ 16), update by id ${result.statements.update} ` +
      `(target ≤ 14)`,
    `  latency of those batches, one at a time, p50/p99: create ${latency("create")}, ` +
      `upsert ${latency("upsert")}, update by id ${latency("update")}`,
  ].join("\n");
}
