// `erp import` of the values offices type: `1,250.50`, `€45`, `15.03.2024`, `yes`. Dates that are
// not ISO need --date-format (day-first and month-first are never guessed); a row's problems, the
// CLI's and the server's, come in one report; every line of the file is accounted for; Ctrl-C
// through `bun run erp` prints the summary, also when the terminal signals the whole process group.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RowDataPacket } from "mysql2";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { erpFor, ndjson, startErpFor, tempDir } from "@erp/testing/cli";
import { newCompany, testDb } from "@erp/testing/company";
import { parseCsv } from "@erp/testing/csv";
import { ROOT } from "@erp/testing/server";
import { useServer } from "@erp/testing/suite";

const suite = useServer();
const dir = tempDir();

/** A CSV as a spreadsheet program saves it: a BOM, cells quoted where needed, CRLF line ends. */
function spreadsheet(name: string, lines: string[][]): string {
  const quote = (cell: string): string =>
    /[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
  const file = path.join(dir, name);
  writeFileSync(file, `\uFEFF${lines.map((row) => row.map(quote).join(",")).join("\r\n")}\r\n`);
  return file;
}

async function workersOf(companyId: number): Promise<unknown[][]> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT w.name, w.email, w.hourly_rate, t.name AS trade, DATE_FORMAT(w.hired_on, '%Y-%m-%d') AS hired_on " +
      "FROM workers w LEFT JOIN trades t ON t.company_id = w.company_id AND t.id = w.trade_id " +
      "WHERE w.company_id = ? AND w.deleted_at IS NULL ORDER BY w.id",
    [companyId],
  );
  return rows.map((row) => [row.name, row.email, row.hourly_rate, row.trade, row.hired_on]);
}

const HEADER = ["Full Name", "E-mail", "Hourly Rate", "Trade", "Hired On"];
const OFFICE_ROWS = [
  ["José Álvarez", "jose@example.com", "1,250.50", "Electrical", "15.03.2024"],
  ["Ann Lee", "ann@example.com", "€45", "carpentry", "2024-01-02"],
  ["Bo Chen", "bo@example.com", " 1 250.5 ", "HVAC", "1.2.2023"],
  ["Cy Dunn", "cy@example.com", "$1,200", "", "2023-11-30"],
  ["Di Eng", "di@example.com", "45 EUR", "Roofing", "31/12/2022"],
  ["Ed Fox", "ed@example.com", "1'250.50", "", ""],
];
const EXPECTED = [
  ["José Álvarez", "jose@example.com", "1250.50", "Electrical", "2024-03-15"],
  ["Ann Lee", "ann@example.com", "45.00", "Carpentry", "2024-01-02"],
  ["Bo Chen", "bo@example.com", "1250.50", "HVAC", "2023-02-01"],
  ["Cy Dunn", "cy@example.com", "1200.00", null, "2023-11-30"],
  ["Di Eng", "di@example.com", "45.00", "Roofing", "2022-12-31"],
  ["Ed Fox", "ed@example.com", "1250.50", null, null],
];

/** Rows 1, 3 and 5 have dates that are not ISO. */
const notIso = (_: unknown, index: number): boolean => index % 2 === 0;
const iso = (_: unknown, index: number): boolean => index % 2 === 1;

describe("values as spreadsheets write them", () => {
  test("with --date-format DD.MM.YYYY: 0 rejects, and the records hold the values meant", async () => {
    const { token, companyId } = await newCompany();
    const file = spreadsheet("office.csv", [HEADER, ...OFFICE_ROWS]);
    const result = await erpFor(
      suite.server.baseUrl,
      token,
    )(["import", "workers", file, "--date-format", "DD.MM.YYYY", "-o", "json"]);
    expect(result.stderr).not.toContain("rejected:");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: 6, created: 6, rejected: 0 });
    expect(await workersOf(companyId)).toEqual(EXPECTED);
  });

  test("without --date-format: exactly the rows whose dates are not ISO are rejected, naming the flag", async () => {
    const { token, companyId } = await newCompany();
    const file = spreadsheet("office.csv", [HEADER, ...OFFICE_ROWS]);
    const rejects = path.join(dir, "office-rejects.csv");
    const report = path.join(dir, "office-report.ndjson");
    const result = await erpFor(
      suite.server.baseUrl,
      token,
    )(["import", "workers", file, "--rejects", rejects, "--report", report, "-o", "json"]);
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: 6, created: 3, rejected: 3 });
    const lines = ndjson(readFileSync(report, "utf8"));
    expect(
      lines.map((line) => [line.row, line.errors.map((e: { field: string }) => e.field)]),
    ).toEqual([
      [1, ["hired_on"]],
      [3, ["hired_on"]],
      [5, ["hired_on"]],
    ]);
    for (const line of lines) expect(line.errors[0].message).toContain("--date-format");
    const written = readFileSync(rejects, "utf8");
    expect(written.startsWith("\uFEFF")).toBe(true);
    const table = parseCsv(written.slice(1));
    expect(table[0]).toEqual([...HEADER, "error"]);
    expect(table.slice(1).map((row) => row.slice(0, -1))).toEqual(OFFICE_ROWS.filter(notIso));
    expect(await workersOf(companyId)).toEqual(EXPECTED.filter(iso));

    // The rejects file, re-imported with the flag, brings in the rest: every value as meant.
    const again = await erpFor(
      suite.server.baseUrl,
      token,
    )(["import", "workers", rejects, "--date-format", "dd.mm.yyyy", "-o", "json"]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ created: 3, rejected: 0 });
    expect(await workersOf(companyId)).toEqual([
      ...EXPECTED.filter(iso),
      ...EXPECTED.filter(notIso),
    ]);
  });

  test("an amount's currency must agree with the record's; a row without one takes the amount's", async () => {
    const { token } = await newCompany();
    const file = spreadsheet("projects.csv", [
      ["Name", "Budget", "Currency", "Start Date"],
      ["Depot", "€1.250.000,00", "EUR", "01.04.2024"],
      ["Bridge", "1.500,5 EUR", "", ""],
      ["Quay", "300 €", " eur ", ""],
      ["Tower", "£2.000", "EUR", ""],
      ["Plain", "900", "", ""],
    ]);
    const report = path.join(dir, "projects-report.ndjson");
    const cli = erpFor(suite.server.baseUrl, token);
    const result = await cli([
      "import",
      "projects",
      file,
      "--decimal-comma",
      "--date-format",
      "DD.MM.YYYY",
      "--report",
      report,
      "-o",
      "json",
    ]);
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({ created: 4, rejected: 1 });
    expect(ndjson(readFileSync(report, "utf8"))).toMatchObject([
      {
        row: 4,
        errors: [
          {
            field: "budget_amount",
            code: "currency_mismatch",
            message: '"£2.000" is in GBP, but the row\'s currency is EUR',
          },
        ],
      },
    ]);
    const listed = JSON.parse(
      (
        await cli([
          "projects",
          "list",
          "--fields",
          "name,budget_amount,currency,start_date",
          "-o",
          "json",
        ])
      ).stdout,
    );
    expect(
      listed.map((p: Record<string, unknown>) => [
        p.name,
        p.budget_amount,
        p.currency,
        p.start_date,
      ]),
    ).toEqual([
      ["Depot", "1250000.00", "EUR", "2024-04-01"],
      ["Bridge", "1500.50", "EUR", null],
      ["Quay", "300.00", "EUR", null],
      ["Plain", "900.00", "USD", null],
    ]);
  });
});

test("a row's problems at once: an unknown trade, a bad email, an unreadable date; none written", async () => {
  const { token, companyId } = await newCompany();
  const file = spreadsheet("problems.csv", [
    HEADER,
    ["Gus Hall", "gus(at)example.com", "12,5", "Welding", "15.03.2024"],
    ["Ivy Jones", "ivy(at)example.com", "40", "Electrical", "2024-02-30"],
    ["Kay Lin", "kay@example.com", "40", "Electrical", "2024-03-01"],
  ]);
  const report = path.join(dir, "problems-report.ndjson");
  const rejects = path.join(dir, "problems-rejects.csv");
  const result = await erpFor(
    suite.server.baseUrl,
    token,
  )(["import", "workers", file, "--report", report, "--rejects", rejects, "-o", "json"]);
  expect(result.code).toBe(3);
  expect(JSON.parse(result.stdout)).toMatchObject({ rows: 3, created: 1, rejected: 2 });
  const [gus, ivy] = ndjson(readFileSync(report, "utf8"));
  const fields = (line: { errors: { field: string; code: string }[] }) =>
    line.errors.map((e) => `${e.field}:${e.code}`).sort();
  expect(fields(gus)).toEqual(
    [
      "email:invalid_email",
      "hired_on:unreadable_value",
      "hourly_rate:unreadable_value",
      "trade:unknown_reference",
    ].sort(),
  );
  expect(gus.detail).toBe("4 fields have problems");
  expect(fields(ivy)).toEqual(["email:invalid_email", "hired_on:unreadable_value"]);
  const [, gusRow] = parseCsv(readFileSync(rejects, "utf8").replace(/^\uFEFF/, ""));
  expect(gusRow!.slice(0, 5)).toEqual([
    "Gus Hall",
    "gus(at)example.com",
    "12,5",
    "Welding",
    "15.03.2024",
  ]);
  for (const part of ["Welding", "email", "--date-format", "--decimal-comma"])
    expect(gusRow![5]).toContain(part);
  expect((await workersOf(companyId)).map((row) => row[0])).toEqual(["Kay Lin"]);
});

test("every line accounted for: blank lines, empty rows, repeated rows reported; --skip-repeated", async () => {
  const { token, companyId } = await newCompany();
  const body = [
    "name,email,hourly_rate",
    "",
    "Mo,mo@example.com,10",
    ",,",
    "Ned,ned@example.com,11",
    "Mo,mo@example.com,10",
    "",
    "  ,, ",
    "Mo,mo@example.com,10",
    "Oli,oli(at)example.com,12",
    "",
  ].join("\n");
  const file = path.join(dir, "lines.csv");
  writeFileSync(file, `${body}\n`);
  const report = path.join(dir, "lines-report.ndjson");
  const cli = erpFor(suite.server.baseUrl, token);
  const first = await cli(["import", "workers", file, "--report", report, "-o", "json"]);
  expect(first.code).toBe(3);
  expect(JSON.parse(first.stdout)).toMatchObject({
    rows: 5,
    created: 4,
    rejected: 1,
    blank: 5,
    repeated: 2,
    skipped_repeated: 0,
  });
  expect(first.stderr).toContain("2 rows repeat an earlier row");
  expect(first.stderr).toContain("5 blank lines skipped");
  const repeated = ndjson(readFileSync(report, "utf8")).filter(
    (line) => line.code === "repeated_row",
  );
  expect(repeated).toEqual([
    { row: 4, line: 6, code: "repeated_row", repeats: { row: 1, line: 3 }, skipped: false },
    { row: 6, line: 9, code: "repeated_row", repeats: { row: 1, line: 3 }, skipped: false },
  ]);
  expect((await workersOf(companyId)).map((row) => row[0])).toEqual(["Mo", "Ned", "Mo", "Mo"]);

  const other = await newCompany();
  const skipped = await erpFor(
    suite.server.baseUrl,
    other.token,
  )(["import", "workers", file, "--skip-repeated", "-o", "json"]);
  expect(JSON.parse(skipped.stdout)).toMatchObject({
    rows: 5,
    created: 2,
    rejected: 1,
    blank: 5,
    repeated: 2,
    skipped_repeated: 2,
  });
  expect((await workersOf(other.companyId)).map((row) => row[0])).toEqual(["Mo", "Ned"]);
});

describe("against an API that answers each batch slowly", () => {
  // A stand-in API: the signal comes while batches are in flight, and it sees how many overlap.
  let answered = 0;
  let flying = 0;
  let mostFlying = 0;
  /** How long a batch is held; a test whose signals must land inside one batch raises it. */
  let holdMs = 250;
  let stub: ReturnType<typeof Bun.serve>;
  beforeAll(() => {
    stub = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        const url = new URL(request.url);
        if (url.pathname === "/v1/usage")
          return Response.json({ data: { quotas: { workers: { used: 0, limit: null } } } });
        if (url.pathname === "/v1/custom-fields") return Response.json({ data: [] });
        const { items } = (await request.json()) as { items: unknown[] };
        mostFlying = Math.max(mostFlying, ++flying);
        await Bun.sleep(holdMs);
        flying--;
        answered++;
        return Response.json({
          data: {
            dry_run: false,
            atomic: false,
            created: items.length,
            updated: 0,
            failed: 0,
            results: items.map((_, index) => ({
              index,
              status: 201,
              id: index + 1,
              action: "created",
            })),
          },
        });
      },
    });
  });
  afterAll(() => void stub.stop(true));

  test("--concurrency bounds the batches in flight (3 by default)", async () => {
    const file = path.join(dir, "six-batches.csv");
    writeFileSync(file, `name\n${Array.from({ length: 600 }, (_, i) => `Crew ${i}`).join("\n")}\n`);
    const cli = erpFor(`http://127.0.0.1:${stub.port}`, "erp_stub");
    const most: Record<string, number> = {};
    for (const concurrency of ["1", "2", undefined]) {
      mostFlying = 0;
      const args = ["import", "workers", file, "--batch-size", "100", "-o", "json"];
      const result = await cli(concurrency ? [...args, "--concurrency", concurrency] : args, {
        env: { XDG_STATE_HOME: path.join(dir, `state-c${concurrency}`) },
      });
      expect(JSON.parse(result.stdout)).toMatchObject({ created: 600 });
      most[concurrency ?? "default"] = mostFlying;
    }
    expect(most).toEqual({ "1": 1, "2": 2, default: 3 });
  });

  test("import --help is wrapped once: each paragraph's lines run to the width but its last", async () => {
    const help = (await erpFor(`http://127.0.0.1:${stub.port}`, "erp_stub")(["import", "--help"]))
      .stdout;
    const paragraphs = help
      .split("\n\n")
      .filter((part) => !/^\s*(Usage|Arguments|Options|EXAMPLES)/.test(part));
    expect(paragraphs.length).toBeGreaterThan(3);
    for (const paragraph of paragraphs) {
      const lines = paragraph.split("\n");
      for (const line of lines.slice(0, -1))
        expect({ line, short: line.length < 60 }).toEqual({ line, short: false });
    }
  });

  test("a second Ctrl-C quits at once, with a one-line summary", async () => {
    const file = path.join(dir, "second.csv");
    writeFileSync(
      file,
      `name\n${Array.from({ length: 2000 }, (_, i) => `Hand ${i}`).join("\n")}\n`,
    );
    const before = answered;
    const cli = startErpFor(`http://127.0.0.1:${stub.port}`, "erp_stub")(
      ["import", "workers", file, "--batch-size", "100", "--concurrency", "1", "-o", "json"],
      { env: { XDG_STATE_HOME: path.join(dir, "state-second") } },
    );
    // One batch at a time: once the first is answered, the second is held for 3 s, long enough
    // for both signals to land inside it however slowly a loaded machine runs this test.
    holdMs = 3_000;
    while (answered === before && cli.process.exitCode === null) await Bun.sleep(5);
    while (flying === 0 && cli.process.exitCode === null) await Bun.sleep(5);
    cli.process.kill("SIGINT");
    await Bun.sleep(30);
    cli.process.kill("SIGINT");
    const result = await cli.finished;
    holdMs = 250;
    expect(result.code).toBe(130);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(
      /\d+ workers rows: \d+ created, .* not imported .*Stopped early: quit at once/,
    );
    // The batch it left in flight is still being answered: let it be, for the next test.
    while (flying > 0) await Bun.sleep(5);
  });

  test("a Ctrl-C as the import ends changes nothing: its summary and exit code, 10 times in 10", async () => {
    const file = path.join(dir, "one-batch.csv");
    writeFileSync(file, `name\n${Array.from({ length: 100 }, (_, i) => `Late ${i}`).join("\n")}\n`);
    for (let run = 0; run < 10; run++) {
      const cli = startErpFor(`http://127.0.0.1:${stub.port}`, "erp_stub")(
        ["import", "workers", file, "-o", "json"],
        { env: { XDG_STATE_HOME: path.join(dir, `state-late-${run}`) } },
      );
      // The summary is out and the CLI not yet gone: this Ctrl-C finds no import left to stop.
      while (cli.printed() === "" && cli.process.exitCode === null) await Bun.sleep(1);
      cli.process.kill("SIGINT");
      const result = await cli.finished;
      expect({ run, code: result.code }).toEqual({ run, code: 0 });
      expect(JSON.parse(result.stdout)).toMatchObject({ created: 100, stopped: null });
      expect(result.stderr).toContain("100 workers rows: 100 created");
    }
  });

  test("Ctrl-C to the process group of `bun run erp`: the summary and exit 130, 10 times in 10", async () => {
    const file = path.join(dir, "long.csv");
    writeFileSync(
      file,
      `name\n${Array.from({ length: 3000 }, (_, i) => `Worker ${i}`).join("\n")}\n`,
    );
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env))
      if (value !== undefined && !name.startsWith("ERP_") && !name.startsWith("npm_"))
        env[name] = value;
    for (let run = 0; run < 10; run++) {
      // A batch of the run before, still being answered, must not pass for one of this run.
      while (flying > 0) await Bun.sleep(5);
      const before = answered;
      const child = Bun.spawn(
        [
          "setsid",
          process.execPath,
          "run",
          "erp",
          "--",
          "import",
          "workers",
          file,
          "--batch-size",
          "100",
          "-o",
          "json",
        ],
        {
          cwd: ROOT,
          env: {
            ...env,
            ERP_BASE_URL: `http://127.0.0.1:${stub.port}`,
            ERP_TOKEN: "erp_stub",
            ERP_CONFIG: path.join(dir, "no-login.json"),
            XDG_STATE_HOME: path.join(dir, `state-${run}`),
          },
          stdout: "pipe",
          stderr: "pipe",
        },
      );
      const output = Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
      ]);
      while (answered === before && child.exitCode === null) await Bun.sleep(5);
      // setsid made the runner the leader of a process group of its own: signal all of it, as a terminal does.
      process.kill(-child.pid, "SIGINT");
      const code = await child.exited;
      const [stdout, stderr] = await output;
      expect({ run, code }).toEqual({ run, code: 130 });
      const summary = JSON.parse(stdout);
      expect(summary).toMatchObject({ stopped: "interrupted" });
      expect(summary.created).toBeGreaterThan(0);
      // Every row of the file is accounted for, the ones not sent as not imported.
      expect(summary).toMatchObject({ rows: 3000, rejected: 0, blank: 0 });
      expect(summary.created + summary.not_imported).toBe(3000);
      expect(summary.not_imported).toBeGreaterThan(0);
      expect(stderr).toContain("Stopped early: interrupted.");
    }
  }, 60_000);
});
