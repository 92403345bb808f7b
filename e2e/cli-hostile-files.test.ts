// Files an attacker would hand `erp`, through the real CLI and server (docs/cli.md, "Hostile
// files"): workers named as formulas, exported to CSV and opened by LibreOffice, become no formula
// cell, and the same CSV re-imported with --update changes nothing; crafted workbooks (megabytes of
// padding in a kilobyte file, a 400 MB shared string, 200,000 unclosed tags, row 2,000,000,000,
// column FXSHRXW, a sheet stored before workbook.xml) are refused within seconds, in little memory,
// leaving no temporary file; a workbook cut short is unreadable, never "0 rows". And a local
// webhook URL's refusal names the setting that would accept it.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { erpFor, measuredErp, tempDir } from "@erp/testing/cli";
import { ensureDebianTool } from "@erp/testing/debian-tools";
import { newCompany } from "@erp/testing/company";
import { useServer } from "@erp/testing/suite";
import { useUnexpectedApi } from "@erp/testing/unexpected-api";
import { sheetXml, workbookParts, writeZip, type ZipPart } from "@erp/testing/zip";

setDefaultTimeout(300_000);

const suite = useServer();
const dir = tempDir();

const FORMULAS = ["=1+1", "+2+3", "-4+5", "@SUM(6,7)", "=cmd|' /C calc'!A0"];

/** LibreOffice (Debian's libreoffice-calc-nogui, installed when missing), or false and why. */
function hasSoffice(): boolean {
  const found = ensureDebianTool("soffice", "libreoffice-calc-nogui");
  if ("missing" in found) console.log(`[hostile files] skipping LibreOffice: ${found.missing}`);
  return "path" in found;
}

/** The sheet parts of an .xlsx file, by name, unpacked with unzip. */
function sheetOf(file: string): string {
  const unzip = spawnSync("unzip", ["-p", file, "xl/worksheets/sheet1.xml"], { encoding: "utf8" });
  expect(unzip.status).toBe(0);
  return unzip.stdout;
}

describe("formulas in a CSV export", () => {
  test.skipIf(!hasSoffice())(
    "five formula names: LibreOffice makes no formula cell of the CSV, and --update finds all unchanged",
    async () => {
      const { token } = await newCompany();
      const cli = erpFor(suite.server.baseUrl, token);
      const seed = path.join(dir, "formulas.ndjson");
      writeFileSync(seed, FORMULAS.map((name) => JSON.stringify({ name })).join("\n"));
      expect((await cli(["import", "workers", seed])).code).toBe(0);

      const exported = await cli(["export", "workers", "--format", "csv"]);
      expect(exported.code).toBe(0);
      const csv = path.join(dir, "workers.csv");
      writeFileSync(csv, exported.stdout);
      for (const name of FORMULAS) expect(exported.stdout).toContain(`'${name.split(",")[0]}`);

      const converted = spawnSync(
        "soffice",
        ["--headless", "--convert-to", "xlsx", "--outdir", dir, csv],
        { timeout: 120_000, env: { ...process.env, HOME: dir } },
      );
      expect(converted.status).toBe(0);
      const sheet = sheetOf(path.join(dir, "workers.xlsx"));
      expect(sheet).toContain("<sheetData>");
      expect(sheet).not.toMatch(/<(?:\w+:)?f[\s>]/);

      const again = await cli(["import", "workers", csv, "--update", "-o", "json"]);
      expect(again.stderr).not.toContain("rejected:");
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({
        rows: 5,
        unchanged: 5,
        updated: 0,
        created: 0,
        rejected: 0,
      });
      const listed = JSON.parse((await cli(["workers", "list", "-o", "json"])).stdout);
      expect(listed.map((worker: { name: string }) => worker.name).sort()).toEqual(
        [...FORMULAS].sort(),
      );
    },
  );
});

describe("crafted workbooks", () => {
  // Each refusal must come before anything reaches the API.
  const api = useUnexpectedApi();

  const HEADER = '<row r="1"><c r="A1" t="inlineStr"><is><t>name</t></is></c></row>';
  const OPEN = sheetXml(HEADER).replace("</sheetData></worksheet>", "");
  /** A sheet whose row 2 is padded with `mb` megabytes of spaces. */
  const padded = (mb: number) =>
    function* (): Generator<string> {
      yield `${OPEN}<row r="2">`;
      const megabyte = " ".repeat(1024 * 1024);
      for (let i = 0; i < mb; i++) yield megabyte;
      yield '<c r="A2" t="inlineStr"><is><t>x</t></is></c></row></sheetData></worksheet>';
    };
  const string400 = function* (): Generator<string> {
    yield '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>';
    const megabyte = "a".repeat(1024 * 1024);
    for (let i = 0; i < 400; i++) yield megabyte;
    yield "</t></si></sst>";
  };
  const cases: { name: string; parts: () => ZipPart[]; says: string | RegExp; cut?: number }[] = [
    ...[25, 50, 400].map((mb) => ({
      name: `a row padded with ${mb} MB of spaces`,
      parts: () => workbookParts(padded(mb)),
      says: "100 times the file's",
    })),
    {
      name: "a 400 MB shared string",
      parts: () =>
        workbookParts(sheetXml(`${HEADER}<row r="2"><c r="A2" t="s"><v>0</v></c></row>`), {
          sharedStrings: string400,
        }),
      says: "xl/sharedStrings.xml unpacks to more than",
    },
    {
      name: "200,000 unclosed <c> tags",
      parts: () => workbookParts(`${OPEN}<row r="2">${"<c>".repeat(200_000)}`),
      // Past 100 times its size, or a cell inside a cell: whichever the reader meets first.
      says: /is refused: its part|is unreadable as an Excel workbook/,
    },
    {
      name: '<row r="2000000000">',
      parts: () =>
        workbookParts(
          sheetXml(`${HEADER}<row r="2000000000"><c t="inlineStr"><is><t>x</t></is></c></row>`),
        ),
      says: "past Excel's limit of 1,048,576 rows",
    },
    {
      name: "a cell at FXSHRXW2",
      parts: () =>
        workbookParts(
          sheetXml(`${HEADER}<row r="2"><c r="FXSHRXW2" t="inlineStr"><is><t>x</t></is></c></row>`),
        ),
      says: "past Excel's limit of 16,384 columns",
    },
    {
      name: "a 1 GiB sheet stored before workbook.xml",
      parts: () => workbookParts(padded(1024), { sheetFirst: true }),
      says: "100 times the file's",
    },
    {
      name: "a workbook cut short",
      parts: () =>
        workbookParts(
          sheetXml(`${HEADER}<row r="2"><c t="inlineStr"><is><t>Ann</t></is></c></row>`),
        ),
      cut: 200,
      says: "is unreadable as an Excel workbook",
    },
  ];

  for (const { name, parts, says, cut } of cases)
    test(`${name}: exit 2 within 10 s, under 300 MB, no temporary file`, async () => {
      const file = path.join(dir, `${name.replace(/\W+/g, "-")}.xlsx`);
      await writeZip(file, parts(), { cut: cut ?? 0 });
      const tmp = mkdtempSync(path.join(dir, "tmp-"));
      const result = await measuredErp(["import", "workers", file], {
        env: {
          ERP_BASE_URL: api.url(),
          ERP_TOKEN: "erp_stub",
          TMPDIR: tmp,
        },
      });
      console.log(
        `[hostile files] ${name} (${Bun.file(file).size.toLocaleString("en")} bytes): exit ` +
          `${result.code} in ${result.seconds.toFixed(2)} s, peak RSS ${Math.round(result.peakMb)} MB`,
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(says);
      expect(result.stderr).not.toContain("0 rows");
      expect(result.seconds).toBeLessThan(10);
      expect(result.peakMb).toBeLessThan(300);
      expect(readdirSync(tmp)).toEqual([]);
      expect(api.requests()).toBe(0);
    });
});

describe("what a refusal says", () => {
  test("a local webhook URL is refused naming WEBHOOK_ALLOW_PRIVATE=1, which would accept it", async () => {
    const { token } = await newCompany();
    const cli = erpFor(suite.server.baseUrl, token);
    for (const url of ["http://localhost:4000/hooks", "https://127.0.0.1:4000/hooks"]) {
      const result = await cli(["webhooks", "create", url]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("a server started with WEBHOOK_ALLOW_PRIVATE=1");
    }
  });
});
