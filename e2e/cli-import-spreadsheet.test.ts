// `erp import` of the files spreadsheets save: a BOM, CRLF line ends, quoted commas, quotes and
// line breaks in cells, headers in other case, with spaces and hyphens or under an alias, blank
// rows, trades by name. An unknown column stops the import before the first request; the rejects
// file keeps the file's own columns and cells and, fixed in place, imports as it is.
import { describe, expect, test } from "bun:test";
import type { RowDataPacket } from "mysql2";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { erpFor, tempDir } from "@erp/testing/cli";
import { newCompany, testDb } from "@erp/testing/company";
import { parseCsv } from "@erp/testing/csv";
import { useServer } from "@erp/testing/suite";
import { useUnexpectedApi } from "@erp/testing/unexpected-api";

const suite = useServer();
const dir = tempDir();

/** A CSV as a spreadsheet program saves it: a BOM, cells quoted where needed, CRLF after every line. */
function spreadsheet(name: string, rows: string[][]): string {
  const quote = (cell: string): string =>
    /[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
  const file = path.join(dir, name);
  writeFileSync(file, `\uFEFF${rows.map((row) => row.map(quote).join(",")).join("\r\n")}\r\n`);
  return file;
}

const HEADER = [" Name ", "E-Mail", "Phone Number", "Hourly Rate", "Trade", "Start Date"];

async function workersOf(companyId: number): Promise<Record<string, unknown>[]> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT w.name, w.email, w.phone, w.hourly_rate, t.name AS trade, DATE_FORMAT(w.hired_on, " +
      "'%Y-%m-%d') AS hired_on " +
      "FROM workers w LEFT JOIN trades t ON t.company_id = w.company_id AND t.id = w.trade_id " +
      "WHERE w.company_id = ? AND w.deleted_at IS NULL ORDER BY w.id",
    [companyId],
  );
  return rows.map((row) => ({ ...row }));
}

describe("erp import of a spreadsheet's CSV", () => {
  test(
    "BOM, CRLF, quoted commas and line breaks, headers in other case and with spaces, an " +
      "alias, blank rows, trades by name: no rejects, every value as written",
    async () => {
      const { token, companyId } = await newCompany();
      const file = spreadsheet("crew.csv", [
        HEADER,
        ["Doe, Jane", "jane@example.com", "+1 555 0100", "45.50", "electrical", "2024-03-01"],
        ["", "", "", "", "", ""],
        ["Ana\nMaria Silva", "ana@example.com", "(555) 010-0101, ext. 4", "38", "CARPENTRY", ""],
        ['Bob "The Builder" Jones', "", "", "", "General LABOR", "2023-11-15"],
        [" ", "", "  ", "", "", ""],
        ["Hal", "hal@example.com", "", "52.25", "hvac", ""],
      ]);
      const result = await erpFor(
        suite.server.baseUrl,
        token,
      )(["import", "workers", file, "-o", "json"]);
      expect(result.stderr).not.toContain("skipping");
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({
        rows: 4,
        created: 4,
        rejected: 0,
        not_imported: 0,
        blank: 2,
      });
      expect(await workersOf(companyId)).toEqual([
        {
          name: "Doe, Jane",
          email: "jane@example.com",
          phone: "+1 555 0100",
          hourly_rate: "45.50",
          trade: "Electrical",
          hired_on: "2024-03-01",
        },
        {
          name: "Ana\nMaria Silva",
          email: "ana@example.com",
          phone: "(555) 010-0101, ext. 4",
          hourly_rate: "38.00",
          trade: "Carpentry",
          hired_on: null,
        },
        {
          name: 'Bob "The Builder" Jones',
          email: null,
          phone: null,
          hourly_rate: null,
          trade: "General labor",
          hired_on: "2023-11-15",
        },
        {
          name: "Hal",
          email: "hal@example.com",
          phone: null,
          hourly_rate: "52.25",
          trade: "HVAC",
          hired_on: null,
        },
      ]);
    },
  );

  describe("an unknown column", () => {
    const rows = [
      [...HEADER.map((cell) => (cell === "Phone Number" ? "Phone Nmbr" : cell)), "Shoe Size"],
      ["Ivy", "ivy@example.com", "555 0199", "40", "Painting", "2025-01-02", "38"],
      ["Jon", "jon@example.com", "555 0198", "41", "painting", "", "44"],
    ];
    // The header must stop the import before anything reaches the API.
    const stub = useUnexpectedApi();

    test(
      "stops the import before the first request: exit 2, each column named with the closest " +
        "field, if one is close",
      async () => {
        const result = await erpFor(
          stub.url(),
          "erp_stub",
        )(["import", "workers", spreadsheet("unknown.csv", rows), "-o", "json"]);
        expect(result.code).toBe(2);
        expect(stub.requests()).toBe(0);
        expect(result.stdout).toBe("");
        expect(result.stderr).toContain("2 columns that match no field, so nothing was sent");
        expect(result.stderr).toContain(
          '"Phone Nmbr": no field of workers is called that; the closest is phone_number (phone)',
        );
        // Nothing is close to it: no guess, the fields instead.
        expect(result.stderr).toContain(
          '"Shoe Size": no field of workers is called that or anything close (the fields: name, email, phone,',
        );
        expect(result.stderr).toContain("--skip-column");

        // Leaving out one of the two is not enough.
        const one = await erpFor(
          stub.url(),
          "erp_stub",
        )(["import", "workers", spreadsheet("unknown.csv", rows), "--skip-column", "shoe size"]);
        expect(one.code).toBe(2);
        expect(one.stderr).toContain("1 column that matches no field");
        expect(one.stderr).not.toContain("Shoe Size");
        expect(stub.requests()).toBe(0);
      },
    );

    test("--skip-column, --skip-unknown-columns and --map make it go", async () => {
      const { token, companyId } = await newCompany();
      const cli = erpFor(suite.server.baseUrl, token);
      const file = spreadsheet("unknown.csv", rows);

      const skipped = await cli([
        "import",
        "workers",
        file,
        "--dry-run",
        "--skip-column",
        "Shoe Size",
        "--skip-column",
        "PHONE NMBR",
        "-o",
        "json",
      ]);
      expect(skipped.code).toBe(0);
      expect(JSON.parse(skipped.stdout)).toMatchObject({ dry_run: true, valid: 2, rejected: 0 });

      const all = await cli([
        "import",
        "workers",
        file,
        "--dry-run",
        "--skip-unknown-columns",
        "-o",
        "json",
      ]);
      expect(all.code).toBe(0);
      expect(JSON.parse(all.stdout)).toMatchObject({ dry_run: true, valid: 2, rejected: 0 });
      expect(all.stderr).toContain('skipping the column "Phone Nmbr": it matches no field');
      expect(all.stderr).toContain('skipping the column "Shoe Size": it matches no field');
      expect(await workersOf(companyId)).toEqual([]);

      const mapped = await cli([
        "import",
        "workers",
        file,
        "--map",
        "Phone Nmbr=phone",
        "--skip-column",
        "shoe size",
        "-o",
        "json",
      ]);
      expect(mapped.code).toBe(0);
      expect(JSON.parse(mapped.stdout)).toMatchObject({ created: 2, rejected: 0 });
      expect(
        (await workersOf(companyId)).map((worker) => [worker.name, worker.phone, worker.trade]),
      ).toEqual([
        ["Ivy", "555 0199", "Painting"],
        ["Jon", "555 0198", "Painting"],
      ]);
    });
  });

  test(
    "the rejects file keeps the file's columns, order and cells (a trade stays its name); " +
      "fixed in place, it imports as it is",
    async () => {
      const { token, companyId } = await newCompany();
      const cli = erpFor(suite.server.baseUrl, token);
      const file = spreadsheet("with-bad-rows.csv", [
        HEADER,
        ["Kim", "kim@example.com", "", "30", "Roofing", ""],
        ["Lou, Jr.", "lou(at)example.com", "555 0101, ext. 2", "31", "roofing", "2024-02-29"],
        ["", "", "", "", "", ""],
        ["Max", "max@example.com", "", "32", "Plumbng", ""],
        ["Ned", "ned@example.com", "", "12.345", "MASONRY", "2024-13-01"],
        ["Oz", "oz@example.com", "", "33", "", ""],
      ]);
      const rejects = path.join(dir, "fix-me.csv");
      const first = await cli(["import", "workers", file, "--rejects", rejects, "-o", "json"]);
      expect(first.code).toBe(3);
      expect(JSON.parse(first.stdout)).toMatchObject({
        rows: 5,
        created: 2,
        rejected: 3,
        blank: 1,
      });

      const written = parseCsv(readFileSync(rejects, "utf8"));
      expect(written[0]).toEqual([...HEADER, "error"]);
      expect(written.slice(1).map((row) => row.slice(0, -1))).toEqual([
        ["Lou, Jr.", "lou(at)example.com", "555 0101, ext. 2", "31", "roofing", "2024-02-29"],
        ["Max", "max@example.com", "", "32", "Plumbng", ""],
        ["Ned", "ned@example.com", "", "12.345", "MASONRY", "2024-13-01"],
      ]);
      expect(written[1]!.at(-1)).toContain("email");
      expect(written[2]!.at(-1)).toContain('trade: no trade "Plumbng"; did you mean Plumbing?');
      expect(written[3]!.at(-1)).toContain("hourly_rate");
      expect(written[3]!.at(-1)).toContain("hired_on");

      // Fixed in place, as someone would in a spreadsheet: the bad cells edited, the error column left.
      const fixes: Record<string, string> = {
        "lou(at)example.com": "lou@example.com",
        Plumbng: "Plumbing",
        "12.345": "12.35",
        "2024-13-01": "2024-12-01",
      };
      writeFileSync(
        rejects,
        readFileSync(rejects, "utf8").replace(
          /lou\(at\)example\.com|Plumbng|12\.345|2024-13-01/g,
          (cell) => fixes[cell]!,
        ),
      );
      const again = await cli(["import", "workers", rejects, "-o", "json"]);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ rows: 3, created: 3, rejected: 0 });
      expect(again.stderr.match(/ignoring the "error" column/g)).toHaveLength(1);
      expect(
        (await workersOf(companyId)).map((worker) => [
          worker.name,
          worker.email,
          worker.phone,
          worker.hourly_rate,
          worker.trade,
          worker.hired_on,
        ]),
      ).toEqual([
        ["Kim", "kim@example.com", null, "30.00", "Roofing", null],
        ["Oz", "oz@example.com", null, "33.00", null, null],
        ["Lou, Jr.", "lou@example.com", "555 0101, ext. 2", "31.00", "Roofing", "2024-02-29"],
        ["Max", "max@example.com", null, "32.00", "Plumbing", null],
        ["Ned", "ned@example.com", null, "12.35", "Masonry", "2024-12-01"],
      ]);
    },
  );
});
