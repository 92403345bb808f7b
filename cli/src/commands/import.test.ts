// `erp import` run in this process against a scripted API (fake-factory.ts): the flag checks that
// refuse before any row is sent, the exit codes (0, 3 with rejects, 1 when the API stops it, 2 for a
// file past a workbook's limits), Ctrl-C (once, twice, the same keystroke twice under a script
// runner), stdin read whole, and a duplicate named by the row and line that gave the value first.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { sheetXml, workbookParts, writeZip } from "@erp/testing/zip";
import { batchApi, type FakeApi, fakeCli } from "../fake-factory.ts";

const CSV =
  "name,email,external_id\nAnn,ann@example.com,A1\nBo,bo@example.com,B2\nCy,cy@example.com,C3\n";

function csvFile(dir: string, text = CSV, name = "staff.csv"): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** The requests but the one read of the company's custom fields, which the header is checked against. */
const sent = (cli: ReturnType<typeof fakeCli>) =>
  cli.seen.filter((request) => request.path !== "/v1/custom-fields");

describe("flag checks: exit 2 before any row is sent", () => {
  const refusals: [string, string[], string][] = [
    ["--update with --upsert", ["--update", "--upsert"], "not both"],
    ["--if-unmodified without --update", ["--if-unmodified"], "--if-unmodified goes with --update"],
    ["--update without an id column", ["--update"], "--update needs an id column"],
    ["a --map to no field", ["--map", "email=nothing"], 'expected "Header=field"'],
    ["a delimiter that is none", ["--delimiter", "|"], '",", ";" or tab'],
    ["a batch over 500", ["--batch-size", "501"], "from 1 to 500"],
    ["a date layout with no day", ["--date-format", "MM.YYYY"], "DD.MM.YYYY"],
  ];
  for (const [what, flags, says] of refusals)
    test(what, async () => {
      const cli = fakeCli({ api: batchApi() });
      const code = await cli.erp(["import", "workers", csvFile(cli.dir), ...flags]);
      expect(code).toBe(2);
      expect(cli.stderr()).toContain(says);
      expect(sent(cli)).toEqual([]);
    });

  test("a column no field is called, named with the closest field", async () => {
    const cli = fakeCli({ api: batchApi() });
    const file = csvFile(cli.dir, "name,e-mial\nAnn,ann@example.com\n");
    expect(await cli.erp(["import", "workers", file])).toBe(2);
    expect(cli.stderr()).toContain('"e-mial": no field of workers is called that');
    expect(cli.stderr()).toContain("email");
    expect(sent(cli)).toEqual([]);
  });

  test("a file that is not there, and a resource that is none", async () => {
    const cli = fakeCli({ api: batchApi() });
    expect(await cli.erp(["import", "workers", path.join(cli.dir, "missing.csv")])).toBe(2);
    expect(await cli.erp(["import", "wizards", csvFile(cli.dir)])).toBe(2);
    expect(cli.seen).toEqual([]);
  });
});

describe("exit codes", () => {
  test("every row created: 0, and the summary on stdout", async () => {
    const cli = fakeCli({ api: batchApi() });
    expect(await cli.erp(["import", "workers", csvFile(cli.dir), "-o", "json"])).toBe(0);
    expect(JSON.parse(cli.stdout())).toMatchObject({ rows: 3, created: 3, rejected: 0 });
    expect(cli.stderr()).toContain("3 workers rows: 3 created");
  });

  test("a rejected row: 3, written to --rejects in the file's delimiter and read back by it", async () => {
    const cli = fakeCli({
      api: batchApi((item) =>
        item.name === "Bo" ? { code: "validation_failed", field: "email" } : undefined,
      ),
    });
    const source = csvFile(cli.dir, CSV.replaceAll(",", ";"), "semicolons.csv");
    const rejects = path.join(cli.dir, "fix-me.csv");
    expect(await cli.erp(["import", "workers", source, "--rejects", rejects, "-o", "json"])).toBe(
      3,
    );
    expect(JSON.parse(cli.stdout())).toMatchObject({ created: 2, rejected: 1 });
    expect(readFileSync(rejects, "utf8")).toBe(
      "name;email;external_id;error\r\nBo;bo@example.com;B2;validation_failed: email is refused (email: refused)\r\n",
    );
  });

  test("the API refuses the token: 1, the rows not sent are not imported", async () => {
    const cli = fakeCli({
      api: () => ({ status: 401, body: { code: "invalid_token", detail: "no such token" } }),
    });
    expect(await cli.erp(["import", "workers", csvFile(cli.dir), "-o", "json"])).toBe(1);
    expect(JSON.parse(cli.stdout())).toMatchObject({ created: 0, not_imported: 3 });
    expect(cli.stderr()).toContain("401 invalid_token");
  });

  test("a workbook past Excel's rows: 2, naming the limit, nothing sent", async () => {
    const cli = fakeCli({ api: batchApi() });
    const file = path.join(cli.dir, "far.xlsx");
    await writeZip(
      file,
      workbookParts(
        sheetXml(
          '<row r="1"><c t="inlineStr"><is><t>name</t></is></c></row>' +
            '<row r="2000000000"><c t="inlineStr"><is><t>Ann</t></is></c></row>',
        ),
      ),
    );
    expect(await cli.erp(["import", "workers", file])).toBe(2);
    expect(cli.stderr()).toContain("past Excel's limit of 1,048,576 rows");
    expect(cli.seen.filter((request) => request.method === "POST")).toEqual([]);
  });

  test("a workbook past a limit further on: the rows before it go in, then exit 2 with the summary", async () => {
    const cli = fakeCli({ api: batchApi() });
    const file = path.join(cli.dir, "late.xlsx");
    const rows = Array.from(
      { length: 20_000 },
      (_, i) => `<row r="${i + 2}"><c t="inlineStr"><is><t>Worker ${i}</t></is></c></row>`,
    );
    const far = '<row r="20002"><c r="XFE20002" t="inlineStr"><is><t>x</t></is></c></row>';
    const header = '<row r="1"><c t="inlineStr"><is><t>name</t></is></c></row>';
    await writeZip(file, workbookParts(sheetXml(header + rows.join("") + far)));
    expect(await cli.erp(["import", "workers", file, "-o", "json"])).toBe(2);
    const summary = JSON.parse(cli.stdout());
    expect(summary).toMatchObject({ stopped: "the file cannot be read further", rejected: 0 });
    expect(summary.created).toBeGreaterThan(0);
    expect(summary.created).toBeLessThan(20_000);
    expect(cli.stderr()).toContain("past Excel's limit of 16,384 columns");
    expect(cli.stderr()).toContain("Stopped early: the file cannot be read further.");
  });
});

describe("Ctrl-C", () => {
  /** Creates each row; presses Ctrl-C `times` as the first batch arrives. */
  const pressing = (cli: () => ReturnType<typeof fakeCli>, times: number): FakeApi => {
    const api = batchApi();
    let pressed = false;
    return (request) => {
      if (request.method === "POST" && !pressed) {
        pressed = true;
        for (let i = 0; i < times; i++) cli().interrupt();
      }
      return api(request);
    };
  };
  const args = (file: string) => [
    "import",
    "workers",
    file,
    "--batch-size",
    "1",
    "--concurrency",
    "1",
    "-o",
    "json",
  ];

  test("once: the batch in flight finishes, the summary is printed, exit 130", async () => {
    let cli = fakeCli();
    cli = fakeCli({ api: pressing(() => cli, 1) });
    expect(await cli.erp(args(csvFile(cli.dir)))).toBe(130);
    expect(JSON.parse(cli.stdout())).toMatchObject({
      rows: 3,
      created: 1,
      not_imported: 2,
      stopped: "interrupted",
    });
    expect(cli.exits).toEqual([]);
  });

  test("twice: quits at once with a one-line summary", async () => {
    let cli = fakeCli();
    cli = fakeCli({ api: pressing(() => cli, 2) });
    await cli.erp(args(csvFile(cli.dir)));
    expect(cli.exits).toHaveLength(1);
    expect(cli.exits[0]!.code).toBe(130);
    expect(cli.exits[0]!.lastWords).toContain("Stopped early: quit at once");
  });

  test("under a script runner, the same keystroke twice is one Ctrl-C", async () => {
    let cli = fakeCli();
    cli = fakeCli({ api: pressing(() => cli, 2), env: { npm_lifecycle_event: "erp" } });
    expect(await cli.erp(args(csvFile(cli.dir)))).toBe(130);
    expect(cli.exits).toEqual([]);
    expect(JSON.parse(cli.stdout())).toMatchObject({ created: 1, stopped: "interrupted" });
  });

  test("after the import has ended, a Ctrl-C changes nothing", async () => {
    const cli = fakeCli({ api: batchApi() });
    expect(await cli.erp(args(csvFile(cli.dir)))).toBe(0);
    cli.interrupt();
    expect(cli.exits).toEqual([]);
  });
});

describe("the file's rows", () => {
  test("stdin is read to its end, however many chunks it comes in", async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `Worker ${i},w${i}@example.com`);
    const text = `name,email\n${lines.join("\n")}\n`;
    const chunks = text.match(/[\s\S]{1,4096}/g)!;
    const cli = fakeCli({ api: batchApi(), stdin: chunks });
    expect(await cli.erp(["import", "workers", "-", "-o", "json"])).toBe(0);
    expect(JSON.parse(cli.stdout())).toMatchObject({ rows: 3000, created: 3000 });
  });

  test("a unique value given twice names the row and line that gave it first", async () => {
    const taken = new Set<unknown>();
    const cli = fakeCli({
      api: batchApi((item) => {
        if (!taken.has(item.external_id)) return void taken.add(item.external_id);
        return { code: "unique_violation", field: "external_id" };
      }),
    });
    const report = path.join(cli.dir, "report.ndjson");
    const file = csvFile(cli.dir, `${CSV}\nDee,dee@example.com,A1\n`);
    expect(await cli.erp(["import", "workers", file, "--report", report])).toBe(3);
    const [line] = readFileSync(report, "utf8")
      .trim()
      .split("\n")
      .map((text) => JSON.parse(text));
    expect(line).toMatchObject({ row: 4, line: 6, duplicate_of: { row: 1, line: 2 } });
    expect(line.detail).toContain("Row 1 (line 2) of this file gives it first.");
  });

  test("cells escaped against formulas are read back as they were", async () => {
    const cli = fakeCli({ api: batchApi() });
    const file = csvFile(cli.dir, "name,phone\n'=1+1,'+1 555 0100\n\"'@SUM(6,7)\",'-4+5\n");
    expect(await cli.erp(["import", "workers", file])).toBe(0);
    const items = cli.seen.flatMap((request) => (request.body?.items as unknown[]) ?? []);
    expect(items).toEqual([
      { name: "=1+1", phone: "+1 555 0100" },
      { name: "@SUM(6,7)", phone: "-4+5" },
    ]);
  });
});
