// Files as an office in Germany saves them, through the real CLI and server (docs/cli.md, "Files as
// European offices save them"): LibreOffice's CSV with German settings (semicolons, 1.250,50,
// 15.03.2024) imports with --decimal-comma --date-format DD.MM.YYYY and no reject; a workbook's
// rejects, fixed, re-import with the same flags; a value given twice names the row and line that
// gave it first; `bun run erp` reads file paths from the directory it was run in, prints nothing
// of its own around the CLI's output, and `erp login` never shows the token.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { WorkbookWriter } from "@cj-tech-master/excelts";
import type { RowDataPacket } from "mysql2";
import { erpFor, ndjson, tempDir } from "@erp/testing/cli";
import { ensureDebianTool } from "@erp/testing/debian-tools";
import { newCompany, testDb } from "@erp/testing/company";
import { ROOT } from "@erp/testing/server";
import { streamText } from "@erp/testing/stream-text";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(180_000);

const suite = useServer();
const dir = tempDir();

const GERMAN = ["--decimal-comma", "--date-format", "DD.MM.YYYY"];

/** The crew's workbook: a money number, a date cell, text with umlauts; `bad` rows have no email. */
async function crewWorkbook(name: string, bad: string[] = []): Promise<string> {
  const file = path.join(dir, name);
  const output = createWriteStream(file);
  const writer = new WorkbookWriter({ stream: output, useStyles: true, useSharedStrings: true });
  const sheet = writer.addWorksheet("Mannschaft");
  sheet.addRow(["name", "email", "hourly_rate", "hired_on", "phone"]).commit();
  const rows: [string, number, Date][] = [
    ["Jürgen Groß", 1250.5, new Date(Date.UTC(2024, 2, 15))],
    ["Anna Müller", 37.05, new Date(Date.UTC(2023, 11, 31))],
    ["Zoë Weiß", 41, new Date(Date.UTC(2022, 0, 3))],
  ];
  for (const [person, rate, hired] of rows) {
    const email = bad.includes(person)
      ? "keine-adresse"
      : `${person.split(" ")[0]!.toLowerCase()}@example.de`;
    const row = sheet.addRow([person, email, rate, hired, "+49 30 1234567"]);
    row.getCell(3).numFmt = "#,##0.00";
    row.getCell(4).numFmt = "dd.mm.yyyy";
    row.commit();
  }
  sheet.commit();
  const closed = once(output, "close");
  await writer.commit();
  await closed;
  return file;
}

async function workersOf(companyId: number): Promise<unknown[]> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT name, email, hourly_rate, DATE_FORMAT(hired_on, '%Y-%m-%d') AS hired_on, phone " +
      "FROM workers WHERE company_id = ? AND deleted_at IS NULL ORDER BY name",
    [companyId],
  );
  return rows.map((row) => ({ ...row }));
}

const EXPECTED = [
  {
    name: "Anna Müller",
    email: "anna@example.de",
    hourly_rate: "37.05",
    hired_on: "2023-12-31",
    phone: "+49 30 1234567",
  },
  {
    name: "Jürgen Groß",
    email: "jürgen@example.de",
    hourly_rate: "1250.50",
    hired_on: "2024-03-15",
    phone: "+49 30 1234567",
  },
  {
    name: "Zoë Weiß",
    email: "zoë@example.de",
    hourly_rate: "41.00",
    hired_on: "2022-01-03",
    phone: "+49 30 1234567",
  },
];

/** LibreOffice (Debian's libreoffice-calc-nogui, installed when missing), or false and why. */
function hasSoffice(): boolean {
  const found = ensureDebianTool("soffice", "libreoffice-calc-nogui");
  if ("missing" in found) console.log(`[european files] skipping LibreOffice: ${found.missing}`);
  return "path" in found;
}

describe("files as European offices save them", () => {
  test.skipIf(!hasSoffice())(
    "LibreOffice's semicolon CSV with German settings imports with --decimal-comma --date-format DD.MM.YYYY, 0 rejects",
    async () => {
      const { token, companyId } = await newCompany();
      const source = await crewWorkbook("mannschaft.xlsx");
      const converted = spawnSync(
        "soffice",
        [
          "--headless",
          "--convert-to",
          "csv:Text - txt - csv (StarCalc):59,34,76",
          "--outdir",
          dir,
          source,
        ],
        {
          timeout: 120_000,
          env: { ...process.env, HOME: dir, LC_ALL: "de_DE.UTF-8", LANG: "de_DE.UTF-8" },
        },
      );
      expect(converted.status).toBe(0);
      const csv = path.join(dir, "mannschaft.csv");
      const text = readFileSync(csv, "utf8");
      expect(text.split("\n")[0]).toBe("name;email;hourly_rate;hired_on;phone");
      expect(text).toContain(";1.250,50;15.03.2024;");
      expect(text).toContain(";37,05;31.12.2023;");
      const result = await erpFor(
        suite.server.baseUrl,
        token,
      )(["import", "workers", csv, ...GERMAN, "-o", "json"]);
      expect(result.stderr).not.toContain("rejected:");
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ rows: 3, created: 3, rejected: 0 });
      expect(await workersOf(companyId)).toEqual(EXPECTED);
    },
  );

  test("a workbook's rejects, fixed, re-import with the same flags: 0 rejects", async () => {
    const { token, companyId } = await newCompany();
    const cli = erpFor(suite.server.baseUrl, token);
    const source = await crewWorkbook("mit-fehler.xlsx", ["Anna Müller"]);
    const rejects = path.join(dir, "korrigieren.csv");
    const first = await cli([
      "import",
      "workers",
      source,
      ...GERMAN,
      "--rejects",
      rejects,
      "-o",
      "json",
    ]);
    expect(first.code).toBe(3);
    expect(JSON.parse(first.stdout)).toMatchObject({ created: 2, rejected: 1 });
    const written = readFileSync(rejects, "utf8");
    // The typed number as --decimal-comma reads it, the date as every --date-format reads it.
    expect(written).toContain('Anna Müller,keine-adresse,"37,05",2023-12-31,');
    writeFileSync(rejects, written.replace("keine-adresse", "anna@example.de"));
    const again = await cli(["import", "workers", rejects, ...GERMAN, "-o", "json"]);
    expect(again.stderr).not.toContain("rejected:");
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ rows: 1, created: 1, rejected: 0 });
    expect(await workersOf(companyId)).toEqual(EXPECTED);
  });

  test("a unique value given twice names the row and line that gave it first, in one batch or two", async () => {
    const file = path.join(dir, "doppelt.csv");
    writeFileSync(file, "name;external_id\r\nAnna;P-1\r\n\r\nBo;P-2\r\nCy;P-1\r\n");
    for (const [batch, says] of [
      ["500", 'external_id "P-1" is already given by row 1 (line 2) of this file.'],
      ["1", "Row 1 (line 2) of this file gives it first."],
    ] as const) {
      const { token } = await newCompany();
      const report = path.join(dir, `doppelt-${batch}.ndjson`);
      const result = await erpFor(
        suite.server.baseUrl,
        token,
      )(["import", "workers", file, "--batch-size", batch, "--report", report]);
      expect(result.code).toBe(3);
      const [line] = ndjson(readFileSync(report, "utf8"));
      expect(line).toMatchObject({
        row: 3,
        line: 5,
        code: "unique_violation",
        duplicate_of: { row: 1, line: 2 },
      });
      expect(line.detail).toContain(says);
      expect(result.stderr).toContain(says);
    }
  });
});

describe("bun run erp", () => {
  const here = path.join(ROOT, ".data", `cli-user-dir-${process.pid}`);
  afterAll(() => rmSync(here, { recursive: true, force: true }));

  /** `bun run erp -- args` started in `cwd`, as a user types it (no script runner around it). */
  async function bunRunErp(
    cwd: string,
    args: string[],
    env: Record<string, string>,
    stdin?: string,
  ) {
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(
        ([name]) => !name.startsWith("npm_") && !name.startsWith("ERP_") && name !== "INIT_CWD",
      ),
    );
    const child = Bun.spawn([process.execPath, "run", "erp", "--", ...args], {
      cwd,
      env: {
        ...clean,
        XDG_STATE_HOME: path.join(dir, "state"),
        ERP_CONFIG: path.join(dir, "login.json"),
        ...env,
      },
      stdin: stdin === undefined ? "ignore" : new Blob([stdin]),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([
      streamText(child.stdout).done,
      streamText(child.stderr).done,
      child.exited,
    ]);
    return { stdout, stderr, code };
  }

  test("file paths are the user's directory's, and nothing but the CLI's output is printed", async () => {
    const { token } = await newCompany();
    mkdirSync(here, { recursive: true });
    writeFileSync(
      path.join(here, "staff.csv"),
      "name,email\nAnn,ann@example.com\nBo,not-an-email\n",
    );
    const connection = { ERP_BASE_URL: suite.server.baseUrl, ERP_TOKEN: token };
    const result = await bunRunErp(
      here,
      ["import", "workers", "staff.csv", "--rejects", "fix-me.csv", "-o", "json"],
      connection,
    );
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({ created: 1, rejected: 1 });
    expect(readFileSync(path.join(here, "fix-me.csv"), "utf8")).toContain("Bo,not-an-email,");
    // From the checkout, where bunfig.toml is read: no echoed script line, no "script exited".
    const fromRoot = await bunRunErp(
      ROOT,
      ["import", "workers", path.join(here, "staff.csv")],
      connection,
    );
    expect(fromRoot.code).toBe(3);
    expect(fromRoot.stderr).not.toContain("$ bun");
    expect(fromRoot.stderr).not.toContain('script "erp" exited');
  });

  test("erp login --token-stdin never shows the token", async () => {
    const { token } = await newCompany();
    const result = await bunRunErp(
      ROOT,
      ["login", "--base-url", suite.server.baseUrl, "--token-stdin"],
      {},
      `${token}\n`,
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("Logged in to");
    expect(result.stdout + result.stderr).not.toContain(token);
    expect(
      JSON.parse(readFileSync(path.join(dir, "login.json"), "utf8")).profiles.default.token,
    ).toBe(token);
  });
});
