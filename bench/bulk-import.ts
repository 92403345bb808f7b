// The bulk-import leg of `bun run bench`: the CLI importing a CSV of workers into our server, beside
// the least a bulk load can cost (the raw server's batch route: the same rows as one 500-row
// INSERT per request, sent one request at a time), and the database statements one 500-item batch
// of ours runs, for creates and for upserts (MariaDB's `Questions` counter over several batches).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { DatabaseHandle } from "@erp/server/admin";

const ROOT = path.resolve(import.meta.dir, "..");
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
  raw: { rowsPerSecond: number; seconds: number };
  ratio: number;
  /** Statements per 500-item batch of ours (database counter over the batches / batches). */
  statements: { create: number; upsert: number };
}

/** Row i of the file (and of the raw baseline's batches). */
const worker = (i: number): { name: string; email: string; phone: string } => ({
  name: `Imported ${i}`,
  email: `imported${i}@example.com`,
  phone: `+1 555 ${String(i).padStart(4, "0")}`,
});

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
    const child = Bun.spawn(
      [process.execPath, path.join(ROOT, "cli/src/main.ts"), "import", "workers", file],
      {
        cwd: dir,
        env: {
          ...process.env,
          ERP_BASE_URL: baseUrl,
          ERP_TOKEN: company.token,
          XDG_STATE_HOME: dir,
          XDG_CONFIG_HOME: dir,
        },
        stdout: "ignore",
        stderr: "ignore",
      },
    );
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
  for (const body of bodies) {
    const response = await fetch(`${rawBaseUrl}/v1/workers/batch`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
    });
    if (response.status !== 200) throw new Error(`raw batch answered ${response.status}`);
    await response.arrayBuffer();
  }
  const seconds = (performance.now() - started) / 1000;
  return { rowsPerSecond: Math.round(rows / seconds), seconds: Math.round(seconds * 10) / 10 };
}

/** Statements per batch: `batches` batches of 500 creates, then the same items again as upserts (updates). */
async function statementsPerBatch(
  db: DatabaseHandle,
  baseUrl: string,
  token: string,
  batches: number,
): Promise<BulkImport["statements"]> {
  const items = (round: number, changed: boolean) =>
    Array.from({ length: BATCH }, (_, i) => ({
      name: `Counted ${round}-${i}${changed ? " renamed" : ""}`,
      email: `counted${round}-${i}@example.com`,
      external_id: `counted-${round}-${i}`,
    }));
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
    const { data } = (await response.json()) as { data: { failed: number } };
    if (data.failed > 0) throw new Error(`${data.failed} items of a counted batch were refused`);
  };
  const measure = async (upsert: boolean): Promise<number> => {
    const before = await questions(db);
    for (let round = 0; round < batches; round++) await send(round, upsert);
    // One statement of ours (SHOW STATUS) falls inside the window.
    return Math.round((((await questions(db)) - before - 1) / batches) * 10) / 10;
  };
  return { create: await measure(false), upsert: await measure(true) };
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
  const statements = await statementsPerBatch(
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
    statements,
  };
}

export function describeBulkImport(result: BulkImport): string {
  return [
    `CLI import of ${result.rows.toLocaleString("en")} workers: ${result.cli.imported.toLocaleString("en")} in the database, ${result.cli.rowsPerSecond} rows/s in ${result.cli.seconds} s, CLI max RSS ${result.cli.rssMb} MB, exit ${result.cli.exitCode}`,
    `  raw 500-row INSERTs, one request at a time: ${result.raw.rowsPerSecond} rows/s; ratio ${result.ratio} (target ≥ 0.30)`,
    `  statements per 500-item batch: create ${result.statements.create} (target ≤ 12), upsert ${result.statements.upsert} (target ≤ 16)`,
  ].join("\n");
}
