// `erp import` of Excel workbooks and `erp export --format xlsx`, through the real CLI and server: a
// workbook with typed cells (dates, money in a currency format, codes with leading zeros, a formula,
// an empty row, a second sheet) imports with no rejects, as the same records as the same data in a
// CSV as an office types it (with --date-format); its rejects come back as a workbook; an
// export of 10,000 workers re-imports into another company as the same records; a workbook renamed
// .csv, a PDF and a PNG are refused before any request.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { WorkbookReader, WorkbookWriter } from "@cj-tech-master/excelts";
import type { RowDataPacket } from "mysql2";
import { spawnSync } from "node:child_process";
import { createReadStream, createWriteStream, readFileSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import path from "node:path";
import { erpFor, ndjson, tempDir } from "@erp/testing/cli";
import { ensureDebianTool } from "@erp/testing/debian-tools";
import { newCompany, testDb } from "@erp/testing/company";
import { ROOT } from "@erp/testing/server";
import { useServer } from "@erp/testing/suite";
import { useUnexpectedApi } from "@erp/testing/unexpected-api";

setDefaultTimeout(180_000);

const suite = useServer();
const dir = tempDir();

type Cell = string | number | boolean | Date | null | { formula: string; result: number | string };

/** A workbook written with the streaming writer: each sheet's rows, and number formats by column. */
async function workbook(
  name: string,
  sheets: { name: string; rows: Cell[][]; formats?: Record<number, string> }[],
): Promise<string> {
  const file = path.join(dir, name);
  const output = createWriteStream(file);
  const writer = new WorkbookWriter({ stream: output, useStyles: true, useSharedStrings: true });
  for (const sheet of sheets) {
    const worksheet = writer.addWorksheet(sheet.name);
    for (const cells of sheet.rows) {
      const row = worksheet.addRow(cells);
      for (const [column, numFmt] of Object.entries(sheet.formats ?? {}))
        if (cells.length > 0 && row.number > 1) row.getCell(Number(column)).numFmt = numFmt;
      row.commit();
    }
    worksheet.commit();
  }
  const closed = once(output, "close");
  await writer.commit();
  await closed;
  return file;
}

/** Every row of a workbook's first sheet, as the library reads it. */
async function readWorkbook(file: string): Promise<{ values: unknown[]; formats: unknown[] }[]> {
  const rows: { values: unknown[]; formats: unknown[] }[] = [];
  const reader = new WorkbookReader(createReadStream(file), {
    sharedStrings: "cache",
    styles: "cache",
    worksheets: "emit",
  });
  for await (const sheet of reader) {
    for await (const row of sheet) {
      const values = row.values.slice(1);
      rows.push({ values, formats: values.map((_, index) => row.getCell(index + 1).numFmt) });
    }
    break;
  }
  return rows;
}

async function workersOf(companyId: number): Promise<Record<string, unknown>[]> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT w.name, w.email, w.phone, w.hourly_rate, t.name AS trade, " +
      "DATE_FORMAT(w.hired_on, '%Y-%m-%d') AS hired_on, w.external_id, w.status FROM workers w " +
      "LEFT JOIN trades t ON t.company_id = w.company_id AND t.id = w.trade_id " +
      "WHERE w.company_id = ? AND w.deleted_at IS NULL ORDER BY w.external_id, w.id",
    [companyId],
  );
  return rows.map((row) => ({ ...row }));
}

const HEADER = ["Full Name", "E-mail", "External ID", "Hourly Rate", "Hired On", "Trade", "Phone"];
const MONEY = '"€"#,##0.00';
const DAY_FIRST = "dd.mm.yyyy";

/** The office's workbook: typed cells, a formula, an empty row, and a second sheet that must not be read. */
const crew = (): Promise<string> =>
  workbook("crew.xlsx", [
    {
      name: "Crew",
      formats: { 4: MONEY, 5: DAY_FIRST },
      rows: [
        HEADER,
        [
          "José Álvarez",
          "jose@example.com",
          "00042",
          1250.5,
          new Date(Date.UTC(2024, 2, 15)),
          "Electrical",
          "+1 555 0100",
        ],
        [],
        [
          "Ana Silva",
          "ana@example.com",
          "007",
          { formula: "40+5.5", result: 45.5 },
          new Date(Date.UTC(2023, 11, 31)),
          "carpentry",
          null,
        ],
        ["Bo Li", null, "0100", 38, null, null, "555 0101"],
      ],
    },
    {
      name: "Notes",
      rows: [
        ["Shoe Size", "Remarks"],
        ["44", "not a worker"],
      ],
    },
  ]);

describe("erp import of an .xlsx workbook", () => {
  test("typed cells, a formula, an empty row, a second sheet: 0 rejects, each value as its cell holds it", async () => {
    const { token, companyId } = await newCompany();
    const file = await crew();
    const result = await erpFor(
      suite.server.baseUrl,
      token,
    )(["import", "workers", file, "-o", "json"]);
    expect(result.stderr).not.toContain("rejected:");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      format: "xlsx",
      rows: 3,
      created: 3,
      rejected: 0,
      blank: 1,
    });
    expect(await workersOf(companyId)).toEqual([
      {
        name: "José Álvarez",
        email: "jose@example.com",
        phone: "+1 555 0100",
        hourly_rate: "1250.50",
        trade: "Electrical",
        hired_on: "2024-03-15",
        external_id: "00042",
        status: "ACTIVE",
      },
      {
        name: "Ana Silva",
        email: "ana@example.com",
        phone: null,
        hourly_rate: "45.50",
        trade: "Carpentry",
        hired_on: "2023-12-31",
        external_id: "007",
        status: "ACTIVE",
      },
      {
        name: "Bo Li",
        email: null,
        phone: "555 0101",
        hourly_rate: "38.00",
        trade: null,
        hired_on: null,
        external_id: "0100",
        status: "ACTIVE",
      },
    ]);

    // The other sheet, by name in any case; from stdin, where the zip signature says it is a workbook.
    const other = await newCompany();
    const stdin = Bun.spawnSync(
      [
        process.execPath,
        path.join(ROOT, "cli/src/main.ts"),
        "import",
        "workers",
        "-",
        "--sheet",
        "notes",
      ],
      {
        cwd: ROOT,
        env: { ...process.env, ERP_BASE_URL: suite.server.baseUrl, ERP_TOKEN: other.token },
        stdin: readFileSync(file),
      },
    );
    expect(stdin.exitCode).toBe(2);
    expect(stdin.stderr.toString()).toContain('"Shoe Size": no field of workers is called that');
    const missing = await erpFor(
      suite.server.baseUrl,
      other.token,
    )(["import", "workers", file, "--sheet", "Staff"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('has no sheet "Staff"; its sheets: "Crew", "Notes"');
  });

  test("the same rows as an office's CSV (1,250.50, €45.50, 15.03.2024) give identical records", async () => {
    const workbookCompany = await newCompany();
    const csvCompany = await newCompany();
    const csv = path.join(dir, "crew.csv");
    const lines = [
      HEADER.join(","),
      'José Álvarez,jose@example.com,00042,"1,250.50",15.03.2024,Electrical,+1 555 0100',
      ",,,,,,",
      "Ana Silva,ana@example.com,007,€45.50,31.12.2023,carpentry,",
      "Bo Li,,0100,38,,,555 0101",
    ];
    writeFileSync(csv, `\uFEFF${lines.join("\r\n")}\r\n`);
    const fromWorkbook = await erpFor(
      suite.server.baseUrl,
      workbookCompany.token,
    )(["import", "workers", await crew(), "-o", "json"]);
    const fromCsv = await erpFor(
      suite.server.baseUrl,
      csvCompany.token,
    )(["import", "workers", csv, "--date-format", "DD.MM.YYYY", "-o", "json"]);
    for (const result of [fromWorkbook, fromCsv]) {
      expect(result.stderr).not.toContain("rejected:");
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({
        rows: 3,
        created: 3,
        rejected: 0,
        blank: 1,
      });
    }
    const records = await workersOf(workbookCompany.companyId);
    expect(records.map((record) => record.external_id)).toEqual(["00042", "007", "0100"]);
    expect(await workersOf(csvCompany.companyId)).toEqual(records);
  });

  test(
    "money in a currency format is in that currency: checked against the row's, taken when " +
      "it has none",
    async () => {
      const { token } = await newCompany();
      const file = await workbook("projects.xlsx", [
        {
          name: "Projects",
          formats: { 2: MONEY },
          rows: [
            ["Name", "Budget", "Currency"],
            ["Depot", 1250000, null],
            ["Quay", 300, "eur"],
            ["Tower", 2000, "USD"],
          ],
        },
      ]);
      const report = path.join(dir, "projects-report.ndjson");
      const cli = erpFor(suite.server.baseUrl, token);
      const result = await cli(["import", "projects", file, "--report", report, "-o", "json"]);
      expect(result.code).toBe(3);
      expect(JSON.parse(result.stdout)).toMatchObject({ created: 2, rejected: 1 });
      expect(ndjson(readFileSync(report, "utf8"))).toMatchObject([
        {
          row: 3,
          errors: [
            {
              field: "budget_amount",
              code: "currency_mismatch",
              message: '"€2000" is in EUR, but the row\'s currency is USD',
            },
          ],
        },
      ]);
      const listed = JSON.parse(
        (await cli(["projects", "list", "--fields", "name,budget_amount,currency", "-o", "json"]))
          .stdout,
      );
      expect(
        listed.map((p: Record<string, unknown>) => [p.name, p.budget_amount, p.currency]),
      ).toEqual([
        ["Depot", "1250000.00", "EUR"],
        ["Quay", "300.00", "EUR"],
      ]);
    },
  );

  test("rejects go in the format --rejects names: a workbook keeps typed cells, a .csv text", async () => {
    const { token } = await newCompany();
    const file = await workbook("with-bad.xlsx", [
      {
        name: "Crew",
        formats: { 4: MONEY, 5: DAY_FIRST },
        rows: [
          HEADER,
          ["Good", "good@example.com", "001", 10, new Date(Date.UTC(2024, 0, 2)), null, null],
          ["Bad", "not-an-email", "002", 20.25, new Date(Date.UTC(2024, 0, 3)), null, null],
        ],
      },
    ]);
    const rejects = path.join(dir, "fix-me.xlsx");
    const csvRejects = path.join(dir, "fix-me.csv");
    const cli = erpFor(suite.server.baseUrl, token);
    const result = await cli(["import", "workers", file, "--rejects", rejects]);
    expect(result.code).toBe(3);
    const rows = await readWorkbook(rejects);
    expect(rows.map((row) => row.values)).toEqual([
      [...HEADER, "error"],
      [
        "Bad",
        "not-an-email",
        "002",
        20.25,
        new Date(Date.UTC(2024, 0, 3)),
        undefined,
        undefined,
        expect.stringContaining("email"),
      ],
    ]);
    expect(rows[1]!.formats.slice(3, 5)).toEqual([MONEY, DAY_FIRST]);

    const again = await newCompany();
    const csv = await erpFor(
      suite.server.baseUrl,
      again.token,
    )(["import", "workers", file, "--rejects", csvRejects]);
    expect(csv.code).toBe(3);
    const lines = readFileSync(csvRejects, "utf8").trim().split(/\r?\n/);
    expect(lines[0]).toBe(`${HEADER.join(",")},error`);
    // The CSV keeps the cell as it shows its currency, so it re-imports as it is.
    expect(lines[1]).toStartWith("Bad,not-an-email,002,€20.25,2024-01-03,,,");

    // A CSV's rejects as a workbook: its cells as written, as text.
    const third = await newCompany();
    const fromCsv = path.join(dir, "from-csv.xlsx");
    const source = path.join(dir, "with-bad.csv");
    writeFileSync(
      source,
      "name,email,hourly_rate\nGood,good@example.com,10\nBad,not-an-email,020.5\n",
    );
    const textRejects = await erpFor(
      suite.server.baseUrl,
      third.token,
    )(["import", "workers", source, "--rejects", fromCsv]);
    expect(textRejects.code).toBe(3);
    expect((await readWorkbook(fromCsv)).map((row) => row.values)).toEqual([
      ["name", "email", "hourly_rate", "error"],
      ["Bad", "not-an-email", "020.5", expect.stringContaining("email")],
    ]);
  });

  test.skipIf(!hasSoffice())(
    "a workbook saved by LibreOffice from a CSV imports as the CSV does",
    async () => {
      const { token, companyId } = await newCompany();
      const source = path.join(dir, "office.csv");
      writeFileSync(
        source,
        "name,email,external_id,hourly_rate,hired_on\n" +
          "Lena Berg,lena@example.com,00017,52.75,2022-06-01\n" +
          "Omar Haddad,omar@example.com,00018,61,2021-02-28\n",
      );
      const converted = spawnSync(
        "soffice",
        ["--headless", "--convert-to", "xlsx", "--outdir", dir, source],
        { timeout: 120_000, env: { ...process.env, HOME: dir } },
      );
      expect(converted.status).toBe(0);
      const result = await erpFor(
        suite.server.baseUrl,
        token,
      )(["import", "workers", path.join(dir, "office.xlsx"), "-o", "json"]);
      expect(result.code).toBe(0);
      // LibreOffice reads 00017 as the number 17 and the dates as date cells, as Excel would.
      expect(await workersOf(companyId)).toEqual([
        expect.objectContaining({
          name: "Lena Berg",
          hourly_rate: "52.75",
          hired_on: "2022-06-01",
          external_id: "17",
        }),
        expect.objectContaining({
          name: "Omar Haddad",
          hourly_rate: "61.00",
          hired_on: "2021-02-28",
          external_id: "18",
        }),
      ]);
    },
  );
});

describe("erp export --format xlsx", () => {
  test("10,000 workers export as typed cells and re-import into another company as the same records", async () => {
    const from = await newCompany();
    const into = await newCompany();
    const lines = ["name,email,phone,hourly_rate,hired_on,external_id,status"];
    for (let i = 1; i <= 10_000; i++)
      lines.push(
        [
          `Worker ${i}`,
          `w${i}@example.com`,
          `+1 555 ${String(i).padStart(5, "0")}`,
          `${(i % 90) + 10}.${String(i % 100).padStart(2, "0")}`,
          `20${10 + (i % 15)}-0${1 + (i % 9)}-${String(1 + (i % 28)).padStart(2, "0")}`,
          String(i).padStart(6, "0"),
          i % 7 === 0 ? "INACTIVE" : "ACTIVE",
        ].join(","),
      );
    const csv = path.join(dir, "workers.csv");
    writeFileSync(csv, `${lines.join("\n")}\n`);
    const seeded = await erpFor(suite.server.baseUrl, from.token)(["import", "workers", csv]);
    expect(seeded.code).toBe(0);

    const file = path.join(dir, "export.xlsx");
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
        env: { ...process.env, ERP_BASE_URL: suite.server.baseUrl, ERP_TOKEN: from.token },
        stdout: Bun.file(file),
      },
    );
    expect(exported.exitCode).toBe(0);
    expect(exported.stderr.toString()).toContain("exported 10000 workers");

    const rows = await readWorkbook(file);
    expect(rows).toHaveLength(10_001);
    const header = rows[0]!.values as string[];
    const first = rows[1]!;
    const at = (column: string): number => header.indexOf(column);
    expect(typeof first.values[at("id")]).toBe("number");
    expect(first.values[at("hourly_rate")]).toBe(11.01);
    expect(first.formats[at("hourly_rate")]).toBe("#,##0.00");
    expect(first.values[at("hired_on")]).toEqual(new Date(Date.UTC(2011, 1, 2)));
    expect(first.values[at("external_id")]).toBe("000001");

    const imported = await erpFor(
      suite.server.baseUrl,
      into.token,
    )(["import", "workers", file, "-o", "json"]);
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ created: 10_000, rejected: 0 });
    const before = await workersOf(from.companyId);
    expect(before).toHaveLength(10_000);
    expect(await workersOf(into.companyId)).toEqual(before);
  });
});

describe("binary files that are no workbook, or a workbook where CSV is expected", () => {
  // The refusal must come before anything reaches the API.
  const stub = useUnexpectedApi();

  test("an .xlsx renamed .csv, a PDF and a PNG: exit 2 before any request, naming the formats read", async () => {
    const cli = erpFor(stub.url(), "erp_stub");
    const renamed = path.join(dir, "staff.csv");
    writeFileSync(renamed, readFileSync(await crew()));
    const pdf = path.join(dir, "staff.pdf");
    writeFileSync(pdf, "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n");
    const png = path.join(dir, "staff.png");
    writeFileSync(
      png,
      Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex"),
    );
    const asCsv = await cli(["import", "workers", renamed]);
    expect(asCsv.code).toBe(2);
    expect(asCsv.stderr).toContain(
      "is an Excel workbook (a zip archive), not CSV: rename it to .xlsx or add --format xlsx",
    );
    for (const [file, kind] of [
      [pdf, "a PDF document"],
      [png, "a PNG image"],
    ] as const) {
      const result = await cli(["import", "workers", file]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `is ${kind}, not a spreadsheet: erp import reads CSV, NDJSON and XLSX`,
      );
    }
    expect(stub.requests()).toBe(0);
  });
});

/** LibreOffice (Debian's libreoffice-calc-nogui, installed when missing), or false and why. */
function hasSoffice(): boolean {
  const found = ensureDebianTool("soffice", "libreoffice-calc-nogui");
  if ("missing" in found)
    console.log(`[xlsx] skipping the LibreOffice-converted workbook: ${found.missing}`);
  return "path" in found;
}
