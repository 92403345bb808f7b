// The workbook leg of `bun run bench`: `erp import workers` of 100,000 rows from an .xlsx workbook
// against the same rows as CSV, each into a company of its own on our server: the workbook's rate as
// a share of the CSV's (target ≥ 0.8) and the CLI's peak RSS on the workbook (target ≤ 300 MB).
// Run alone with `bun bench/xlsx-import.ts [rows]` (its own throw-away database and server).
import { once } from "node:events";
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { WorkbookWriter } from "@cj-tech-master/excelts";
import { createCompany, type DatabaseHandle } from "@erp/server/admin";
import { runLegAlone } from "./throw-away-database.ts";
import { spawnCli } from "./timing.ts";

export interface XlsxImport {
  rows: number;
  csv: ImportRun;
  xlsx: ImportRun;
  /** The workbook's rows/s over the CSV's. */
  ratio: number;
}

interface ImportRun {
  rowsPerSecond: number;
  seconds: number;
  imported: number;
  rssMb: number;
  exitCode: number;
  fileMb: number;
}

/** Row i: text, an email, a phone, money and a date (typed cells in the workbook, as written in the CSV). */
const worker = (i: number) => ({
  name: `Imported ${i}`,
  email: `imported${i}@example.com`,
  phone: `+1 555 ${String(i).padStart(6, "0")}`,
  rate: 20 + (i % 80) + (i % 4) / 4,
  hired: new Date(Date.UTC(2015 + (i % 10), i % 12, 1 + (i % 28))),
});

function writeCsv(file: string, rows: number): void {
  const lines = ["name,email,phone,hourly_rate,hired_on"];
  for (let i = 0; i < rows; i++) {
    const w = worker(i);
    lines.push(
      `${w.name},${w.email},${w.phone},${w.rate.toFixed(2)},${w.hired.toISOString().slice(0, 10)}`,
    );
  }
  writeFileSync(file, `${lines.join("\n")}\n`);
}

/** The same rows as a workbook Excel would save: shared strings, a money and a date format. */
async function writeWorkbook(file: string, rows: number): Promise<void> {
  const output = createWriteStream(file);
  const workbook = new WorkbookWriter({ stream: output, useStyles: true, useSharedStrings: true });
  const sheet = workbook.addWorksheet("Workers");
  sheet.addRow(["name", "email", "phone", "hourly_rate", "hired_on"]).commit();
  for (let i = 0; i < rows; i++) {
    const w = worker(i);
    const row = sheet.addRow([w.name, w.email, w.phone, w.rate, w.hired]);
    row.getCell(4).numFmt = '"€"#,##0.00';
    row.getCell(5).numFmt = "dd.mm.yyyy";
    row.commit();
  }
  sheet.commit();
  const closed = once(output, "close");
  await workbook.commit();
  await closed;
}

async function countWorkers(db: DatabaseHandle, companyId: number): Promise<number> {
  const [rows] = await db.pool.query(
    "SELECT COUNT(*) AS n FROM workers WHERE company_id = ? AND deleted_at IS NULL",
    [companyId],
  );
  return Number((rows as { n: number }[])[0]!.n);
}

/** A process's peak RSS so far in KB (Linux), or undefined once it is gone. */
function readStatus(pid: number): number | undefined {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

async function cliImport(
  db: DatabaseHandle,
  baseUrl: string,
  company: { company_id: number; token: string },
  file: string,
  rows: number,
): Promise<ImportRun> {
  const dir = path.dirname(file);
  const started = performance.now();
  const child = spawnCli(dir, baseUrl, company.token, ["import", "workers", file]);
  // The peak RSS as the kernel keeps it (VmHWM), read until the process ends: the subprocess's
  // resourceUsage() answered the same figure for every child here, whatever each used.
  let peakKb = 0;
  const sample = setInterval(() => {
    const status = readStatus(child.pid);
    if (status !== undefined) peakKb = Math.max(peakKb, status);
  }, 50);
  const exitCode = await child.exited;
  clearInterval(sample);
  const seconds = (performance.now() - started) / 1000;
  return {
    rowsPerSecond: Math.round(rows / seconds),
    seconds: Math.round(seconds * 10) / 10,
    imported: await countWorkers(db, company.company_id),
    rssMb: Math.round(peakKb / 1024),
    exitCode,
    fileMb: Math.round((Bun.file(file).size / 1024 / 1024) * 10) / 10,
  };
}

export async function xlsxImport(
  db: DatabaseHandle,
  baseUrl: string,
  rows: number,
): Promise<XlsxImport> {
  const dir = mkdtempSync(path.join(tmpdir(), "erp-bench-xlsx-"));
  try {
    const csvFile = path.join(dir, "workers.csv");
    const xlsxFile = path.join(dir, "workers.xlsx");
    writeCsv(csvFile, rows);
    await writeWorkbook(xlsxFile, rows);
    const company = (name: string) =>
      createCompany(db.db, { name, plan: "enterprise", addons: ["api"] });
    const csv = await cliImport(db, baseUrl, await company("CSV Import Co"), csvFile, rows);
    const xlsx = await cliImport(db, baseUrl, await company("XLSX Import Co"), xlsxFile, rows);
    return {
      rows,
      csv,
      xlsx,
      ratio: Math.round((xlsx.rowsPerSecond / Math.max(1, csv.rowsPerSecond)) * 100) / 100,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function describeXlsxImport(result: XlsxImport): string {
  const line = (label: string, run: ImportRun) =>
    `  ${label}: ${run.imported.toLocaleString("en")} in the database, ` +
    `${run.rowsPerSecond} rows/s in ${run.seconds} s, ` +
    `CLI max RSS ${run.rssMb} MB, file ${run.fileMb} MB, exit ${run.exitCode}`;
  return [
    `CLI import of ${result.rows.toLocaleString("en")} workers from a workbook and from the same rows as CSV:`,
    line("xlsx", result.xlsx),
    line("csv ", result.csv),
    `  workbook rate / CSV rate: ${result.ratio} (target ≥ 0.8); workbook CLI RSS target ≤ 300 MB`,
  ].join("\n");
}

if (import.meta.main) {
  const rows = Number(process.argv[2] ?? 100_000);
  await runLegAlone("erp_bench_xlsx", async (db, baseUrl) =>
    describeXlsxImport(await xlsxImport(db, baseUrl, rows)),
  );
}
