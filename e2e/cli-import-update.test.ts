// `erp import --update` (docs/cli.md): export (CSV, NDJSON or XLSX), edit as a spreadsheet does,
// import the file back by id. Only the edited records change, each once, with one event; a second
// run changes nothing; with --if-unmodified a record edited on the server since the export is
// refused and kept as it is.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Workbook } from "@cj-tech-master/excelts";
import type { RowDataPacket } from "mysql2";
import type { Api } from "@erp/testing/api";
import { erpFor, type RunningCli, startErpFor, tempDir } from "@erp/testing/cli";
import { closeTestDb, newCompany, testDb } from "@erp/testing/company";
import { parseCsv } from "@erp/testing/csv";
import { ROOT } from "@erp/testing/server";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(240_000);

const WORKERS = 10_000;
const suite = useServer();
const dir = tempDir();
let api: Api;
let companyId: number;
let cli: ReturnType<typeof erpFor>;
let token: string;

beforeAll(async () => {
  const company = await newCompany();
  companyId = company.companyId;
  api = suite.api.as(company.token);
  token = company.token;
  cli = erpFor(suite.server.baseUrl, company.token);
  for (let first = 0; first < WORKERS; first += 500) {
    const response = await api.post("/v1/workers/batch", {
      items: Array.from({ length: 500 }, (_, i) => ({
        name: `Crew ${first + i}`,
        email: `crew${first + i}@example.com`,
        hourly_rate: "40.00",
        hired_on: "2024-03-01",
      })),
    });
    expect(response.body.data.created).toBe(500);
  }
});
afterAll(closeTestDb);

async function events(type: string): Promise<number> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT COUNT(*) AS n FROM events WHERE company_id = ? AND type = ?",
    [companyId, type],
  );
  return Number(rows[0]!.n);
}

/** A CSV as a spreadsheet saves it: CRLF, quotes only where needed, money without trailing zeros. */
function saveAsSpreadsheet(file: string, rows: string[][]): void {
  const cell = (value: string) =>
    /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
  const text = rows
    .map((cells) => cells.map((value) => cell(value.replace(/^(\d+)\.00$/, "$1"))).join(","))
    .join("\r\n");
  writeFileSync(file, `${text}\r\n`);
}

async function exported(name: string): Promise<{ file: string; rows: string[][] }> {
  const file = path.join(dir, name);
  const result = await cli(["export", "workers", "--format", "csv"]);
  expect(result.code).toBe(0);
  writeFileSync(file, result.stdout);
  return { file, rows: parseCsv(readFileSync(file, "utf8")) };
}

describe("erp import --update", () => {
  test("export, edit 1,010 rows in a spreadsheet, import --update: exactly those records change, once", async () => {
    const { file, rows } = await exported("workers.csv");
    const [header, ...data] = rows as [string[], ...string[][]];
    expect(data.length).toBe(WORKERS);
    const column = (name: string) => header.indexOf(name);
    const rateEdited = new Set<string>();
    const nameEdited = new Set<string>();
    data.forEach((cells, i) => {
      if (i % 10 === 3) {
        cells[column("hourly_rate")] = "52.5";
        rateEdited.add(cells[column("id")]!);
      }
      if (i % 1000 === 7) {
        cells[column("name")] = `${cells[column("name")]} Jr.`;
        nameEdited.add(cells[column("id")]!);
      }
    });
    expect(rateEdited.size + nameEdited.size).toBe(1_010);
    saveAsSpreadsheet(file, [header, ...data]);

    const before = await events("worker.updated");
    const run = await cli(["import", "workers", file, "--update", "-o", "json"]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      rows: WORKERS,
      created: 0,
      updated: 1_010,
      unchanged: 8_990,
      rejected: 0,
    });
    expect(await events("worker.updated")).toBe(before + 1_010);
    expect(await events("worker.created")).toBe(WORKERS);
    const [rates] = await testDb().pool.query<RowDataPacket[]>(
      "SELECT id, hourly_rate, name FROM workers WHERE company_id = ? AND (hourly_rate <> 40 OR name LIKE '%Jr.')",
      [companyId],
    );
    expect(
      rates
        .filter((row) => Number(row.hourly_rate) === 52.5)
        .map((row) => String(row.id))
        .sort(),
    ).toEqual([...rateEdited].sort());
    expect(
      rates
        .filter((row) => row.name.endsWith(" Jr."))
        .map((row) => String(row.id))
        .sort(),
    ).toEqual([...nameEdited].sort());

    const again = await cli(["import", "workers", file, "--update", "-o", "json"]);
    expect(again.code).toBe(0);
    const second = JSON.parse(again.stdout);
    expect(second.created + second.updated).toBe(0);
    expect(second.unchanged + second.already_imported).toBe(WORKERS);
    expect(await events("worker.updated")).toBe(before + 1_010);
  });

  test("an XLSX export edited in the workbook round-trips: 1,010 records change, once", async () => {
    const file = path.join(dir, "workers.xlsx");
    // A workbook is binary: straight from the CLI's stdout into the file.
    const exported = Bun.spawnSync(
      [
        process.execPath,
        path.join(ROOT, "cli/src/main.ts"),
        "export",
        "workers",
        "--format",
        "xlsx",
      ],
      {
        cwd: ROOT,
        env: { ...process.env, ERP_BASE_URL: suite.server.baseUrl, ERP_TOKEN: token },
        stdout: Bun.file(file),
      },
    );
    expect(exported.exitCode).toBe(0);
    const book = new Workbook();
    await book.xlsx.readFile(file);
    const sheet = book.worksheets[0]!;
    const header = (sheet.getRow(1).values as unknown[]).slice(1).map(String);
    const column = (name: string) => header.indexOf(name) + 1;
    expect(sheet.rowCount).toBe(WORKERS + 1);
    const rateEdited = new Set<number>();
    const nameEdited = new Set<number>();
    // As a person edits the sheet: a typed number in the rate's cell, text appended to a name.
    for (let i = 0; i < WORKERS; i++) {
      const row = sheet.getRow(i + 2);
      const id = Number(row.getCell(column("id")).value);
      if (i % 10 === 4) {
        row.getCell(column("hourly_rate")).value = 57.25;
        rateEdited.add(id);
      }
      if (i % 1000 === 8) {
        row.getCell(column("name")).value = `${row.getCell(column("name")).value} Sr.`;
        nameEdited.add(id);
      }
    }
    expect(rateEdited.size + nameEdited.size).toBe(1_010);
    await book.xlsx.writeFile(file);

    const before = await events("worker.updated");
    const run = await cli(["import", "workers", file, "--update", "-o", "json"]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      format: "xlsx",
      rows: WORKERS,
      created: 0,
      updated: 1_010,
      unchanged: 8_990,
      rejected: 0,
    });
    expect(await events("worker.updated")).toBe(before + 1_010);
    const [changed] = await testDb().pool.query<RowDataPacket[]>(
      "SELECT id, hourly_rate, name FROM workers WHERE company_id = ? AND (hourly_rate = 57.25 OR name LIKE '%Sr.')",
      [companyId],
    );
    const ids = (keep: (row: RowDataPacket) => boolean) =>
      changed
        .filter(keep)
        .map((row) => Number(row.id))
        .sort((a, b) => a - b);
    const sorted = (set: Set<number>) => [...set].sort((a, b) => a - b);
    expect(ids((row) => Number(row.hourly_rate) === 57.25)).toEqual(sorted(rateEdited));
    expect(ids((row) => row.name.endsWith(" Sr."))).toEqual(sorted(nameEdited));

    const again = await cli(["import", "workers", file, "--update", "-o", "json"]);
    expect(again.code).toBe(0);
    const second = JSON.parse(again.stdout);
    expect(second.created + second.updated).toBe(0);
    expect(second.unchanged + second.already_imported).toBe(WORKERS);
    expect(await events("worker.updated")).toBe(before + 1_010);
  });

  test(
    "--if-unmodified: a record edited on the server after the export is refused (412) and " +
      "kept as the server has it",
    async () => {
      const { file, rows } = await exported("workers-since.csv");
      const [header, ...data] = rows as [string[], ...string[][]];
      const column = (name: string) => header.indexOf(name);
      const [mine, theirs] = [data[100]!, data[200]!];
      mine[column("hourly_rate")] = "61";
      theirs[column("hourly_rate")] = "62";
      saveAsSpreadsheet(file, [header, ...data]);
      const theirsId = Number(theirs[column("id")]);
      await api.patch(`/v1/workers/${theirsId}`, { phone: "+1 555 0142" });
      const before = await events("worker.updated");

      const preview = await cli([
        "import",
        "workers",
        file,
        "--update",
        "--if-unmodified",
        "--dry-run",
        "-o",
        "json",
      ]);
      expect(JSON.parse(preview.stdout)).toMatchObject({ valid: 1, rejected: 1, updated: 0 });
      expect(await events("worker.updated")).toBe(before);

      const rejects = path.join(dir, "since-rejects.csv");
      const run = await cli([
        "import",
        "workers",
        file,
        "--update",
        "--if-unmodified",
        "--rejects",
        rejects,
        "-o",
        "json",
      ]);
      expect(run.code).toBe(3);
      expect(JSON.parse(run.stdout)).toMatchObject({ updated: 1, rejected: 1, created: 0 });
      expect(run.stderr).toContain("412 precondition_failed");
      expect((await api.get(`/v1/workers/${theirsId}`)).body.data).toMatchObject({
        hourly_rate: "40.00",
        phone: "+1 555 0142",
      });
      expect((await api.get(`/v1/workers/${mine[column("id")]}`)).body.data.hourly_rate).toBe(
        "61.00",
      );
      expect(await events("worker.updated")).toBe(before + 1);
      const refused = parseCsv(readFileSync(rejects, "utf8"));
      expect(refused.length).toBe(2);
      expect(refused[1]![column("id")]).toBe(String(theirsId));
    },
  );

  test(
    "interrupted by kill -9, then by Ctrl-C, then re-run with the journal lost: every edited " +
      "record changes exactly once",
    async () => {
      const { file, rows } = await exported("workers-interrupted.csv");
      const [header, ...data] = rows as [string[], ...string[][]];
      const rate = header.indexOf("hourly_rate");
      const edited = new Set<string>();
      data.forEach((cells, i) => {
        if (i % 5 !== 1) return;
        cells[rate] = "71.25";
        edited.add(cells[header.indexOf("id")]!);
      });
      saveAsSpreadsheet(file, [header, ...data]);
      const state = path.join(dir, "state-interrupted");
      const journals = path.join(state, "erp", "imports");
      const journaled = (): number =>
        existsSync(journals)
          ? readdirSync(journals).reduce(
              (lines, name) =>
                lines + readFileSync(path.join(journals, name), "utf8").split("\n").length - 1,
              0,
            )
          : 0;
      const start = () =>
        startErpFor(suite.server.baseUrl, token)(
          ["import", "workers", file, "--update", "--batch-size", "50", "-o", "json"],
          { env: { XDG_STATE_HOME: state } },
        );
      const until = async (cli: RunningCli, done: () => boolean): Promise<void> => {
        while (!done() && cli.process.exitCode === null) await Bun.sleep(5);
      };
      const before = await events("worker.updated");

      const killed = start();
      await until(killed, () => journaled() >= 200);
      killed.process.kill("SIGKILL");
      await killed.finished;
      const afterKill = journaled();
      expect(afterKill).toBeLessThan(edited.size);

      const stopped = start();
      await until(stopped, () => journaled() >= afterKill + 200);
      stopped.process.kill("SIGINT");
      const interrupted = await stopped.finished;
      expect(interrupted.code).toBe(130);
      expect(journaled()).toBeLessThan(edited.size);

      rmSync(journals, { recursive: true, force: true });
      const last = await start().finished;
      expect(last.code).toBe(0);
      expect(JSON.parse(last.stdout)).toMatchObject({ rejected: 0, created: 0 });
      expect(await events("worker.updated")).toBe(before + edited.size);
      const [changed] = await testDb().pool.query<RowDataPacket[]>(
        "SELECT id FROM workers WHERE company_id = ? AND hourly_rate = 71.25",
        [companyId],
      );
      expect(changed.map((row) => String(row.id)).sort()).toEqual([...edited].sort());
    },
  );

  test("an NDJSON export round-trips too: the edited object changes, the others are unchanged", async () => {
    const exportedNdjson = await cli(["export", "workers", "--format", "ndjson"]);
    const objects = exportedNdjson.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    objects[5] = { ...objects[5], email: "edited@example.com" };
    const file = path.join(dir, "workers.ndjson");
    writeFileSync(file, `${objects.map((object) => JSON.stringify(object)).join("\n")}\n`);
    const before = await events("worker.updated");
    const run = await cli(["import", "workers", file, "--update", "--if-unmodified", "-o", "json"]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ updated: 1, unchanged: WORKERS - 1 });
    expect((await api.get(`/v1/workers/${objects[5]!.id}`)).body.data.email).toBe(
      "edited@example.com",
    );
    expect(await events("worker.updated")).toBe(before + 1);
  });

  test("an unknown id is a reject; a file without an id column is refused before anything is sent", async () => {
    const file = path.join(dir, "unknown.csv");
    writeFileSync(file, "id,name\n999999999,Nobody\n");
    const run = await cli(["import", "workers", file, "--update", "-o", "json"]);
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toMatchObject({ rejected: 1, updated: 0 });
    expect(run.stderr).toContain("404 not_found");
    const noId = path.join(dir, "no-id.csv");
    writeFileSync(noId, "name\nNobody\n");
    const refused = await cli(["import", "workers", noId, "--update"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("id column");
  });
});
