// The company's custom fields on the command line (docs/cli.md, "Custom fields"): `erp
// custom-fields` defines them, `custom_fields.<key>=value` writes them, a resource's --help lists
// them, `erp export` heads their columns by label and `erp import` reads those columns back (by
// label or key, with the typo hints and value readings of built-in fields). An office workbook
// made by LibreOffice with three custom columns and a trade the company lacks imports with
// --create-missing trade and 0 rejects, and its export re-imported with --update is all unchanged.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { Workbook } from "@cj-tech-master/excelts";
import { erpFor, tempDir } from "@erp/testing/cli";
import { newCompany, type TestCompany } from "@erp/testing/company";
import { ensureDebianTool } from "@erp/testing/debian-tools";
import { ROOT } from "@erp/testing/server";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(180_000);

const suite = useServer();
const dir = tempDir();
let company: TestCompany;
let cli: ReturnType<typeof erpFor>;

/** The three fields an office keeps on its workers beyond the API's own. */
const FIELDS = [
  ["union_no", "Union number", "text", []],
  ["card_expires", "Safety card expires", "date", []],
  ["boot_allowance", "Boot allowance", "money", []],
  ["shirt", "Shirt size", "select", ["--choices", "S,M,L,XL"]],
] as const;

beforeAll(async () => {
  company = await newCompany();
  cli = erpFor(suite.server.baseUrl, company.token);
  for (const [key, label, type, extra] of FIELDS) {
    const made = await cli([
      "custom-fields",
      "create",
      "workers",
      key,
      "--label",
      label,
      "--type",
      type,
      ...extra,
      "-o",
      "json",
    ]);
    if (made.code !== 0) throw new Error(`custom-fields create ${key}: ${made.stderr}`);
  }
});

/** The company's workers by email: their custom values and trade name, read through the API. */
async function workersByEmail(): Promise<Map<string, Record<string, unknown>>> {
  const api = suite.api.as(company.token);
  const listed = await api.get("/v1/workers?limit=100&expand=trade&sort=id");
  expect(listed.status).toBe(200);
  return new Map(
    listed.body.data.map((worker: Record<string, any>) => [
      worker.email,
      { trade: worker.trade?.name ?? null, ...worker.custom_fields },
    ]),
  );
}

/** `erp export workers --format xlsx` straight into a file (a workbook is binary). */
function exportWorkbook(file: string): void {
  const exported = Bun.spawnSync(
    [process.execPath, path.join(ROOT, "cli/src/main.ts"), "export", "workers", "--format", "xlsx"],
    {
      cwd: ROOT,
      env: { ...process.env, ERP_BASE_URL: suite.server.baseUrl, ERP_TOKEN: company.token },
      stdout: Bun.file(file),
    },
  );
  expect(exported.exitCode).toBe(0);
}

/** LibreOffice (Debian's libreoffice-calc-nogui, installed when missing), or false and why. */
function hasSoffice(): boolean {
  const found = ensureDebianTool("soffice", "libreoffice-calc-nogui");
  if ("missing" in found) console.log(`[custom fields] skipping LibreOffice: ${found.missing}`);
  return "path" in found;
}

describe("erp custom-fields", () => {
  test("list shows the definitions; update and delete have dry-runs; a bad type is exit 2", async () => {
    const listed = await cli(["custom-fields", "list", "--resource", "workers", "-o", "json"]);
    expect(listed.code).toBe(0);
    const definitions = JSON.parse(listed.stdout) as Record<string, unknown>[];
    expect(definitions.map((one) => one.key)).toEqual(FIELDS.map(([key]) => key));
    expect(definitions.find((one) => one.key === "shirt")).toMatchObject({
      label: "Shirt size",
      type: "select",
      options: { choices: ["S", "M", "L", "XL"] },
    });
    expect(JSON.parse((await cli(["custom-fields", "list", "-o", "json"])).stdout)).toHaveLength(
      FIELDS.length,
    );

    const scratch = await cli([
      "custom-fields",
      "create",
      "clients",
      "region",
      "--label",
      "Region",
      "--type",
      "text",
      "-o",
      "json",
    ]);
    expect(scratch.code).toBe(0);
    const id = JSON.parse(scratch.stdout).id as number;
    const renamed = await cli(["custom-fields", "update", String(id), "--label", "Sales region"]);
    expect(renamed.code).toBe(0);
    const got = JSON.parse((await cli(["custom-fields", "get", String(id), "-o", "json"])).stdout);
    expect(got).toMatchObject({ key: "region", label: "Sales region", type: "text" });
    const dry = await cli(["custom-fields", "delete", String(id), "--dry-run", "-o", "json"]);
    expect(dry.code).toBe(0);
    expect(dry.stderr).toContain("dry run");
    expect((await cli(["custom-fields", "delete", String(id)])).code).toBe(2);
    expect((await cli(["custom-fields", "delete", String(id), "--yes"])).code).toBe(0);

    const wrong = await cli([
      "custom-fields",
      "create",
      "workers",
      "x",
      "--label",
      "X",
      "--type",
      "colour",
    ]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("text, integer, decimal, money, date, boolean, select");
  });

  test("create and update take custom_fields.<key>=value, read by the field's type", async () => {
    const made = await cli([
      "workers",
      "create",
      "name=Cli Custom",
      "email=cli.custom@example.com",
      "custom_fields.union_no=U-7",
      "custom_fields.card_expires=2027-05-31",
      "custom_fields.boot_allowance=€1,250.50",
      "-o",
      "json",
    ]);
    expect(made.stderr).toBe("");
    expect(made.code).toBe(0);
    const id = JSON.parse(made.stdout).id as number;
    const changed = await cli([
      "workers",
      "update",
      String(id),
      "custom_fields.shirt=XL",
      "custom_fields.union_no=",
      "-o",
      "json",
    ]);
    expect(changed.code).toBe(0);
    const got = JSON.parse((await cli(["workers", "get", String(id), "-o", "json"])).stdout);
    expect(got.custom_fields).toEqual({
      union_no: null,
      card_expires: "2027-05-31",
      boot_allowance: "1250.50",
      shirt: "XL",
    });
    const refused = await cli(["workers", "update", String(id), "custom_fields.shirt=XXL"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("custom_fields.shirt");
    const unreadable = await cli([
      "workers",
      "update",
      String(id),
      "custom_fields.card_expires=31.05.2027",
    ]);
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toContain(
      'custom_fields.card_expires: "31.05.2027" is not a date as YYYY-MM-DD',
    );
  });

  test("a resource's --help lists the company's custom fields when connected", async () => {
    for (const args of [
      ["workers", "--help"],
      ["workers", "create", "--help"],
      ["workers", "update", "--help"],
    ]) {
      const help = await cli(args);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("CUSTOM FIELDS");
      expect(help.stdout).toContain("custom_fields.union_no");
      expect(help.stdout).toContain("Union number");
      expect(help.stdout).toContain("S|M|L|XL");
    }
    const clients = await cli(["clients", "create", "--help"]);
    expect(clients.stdout).not.toContain("custom_fields.union_no");
  });
});

describe("custom fields in files", () => {
  test("a header matches a custom field by label or key; a typo names the closest", async () => {
    const file = path.join(dir, "typo.csv");
    writeFileSync(file, "name,Union numbr,card_expires\nTypo,U-1,2027-01-01\n");
    const result = await cli(["import", "workers", file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"Union numbr"');
    expect(result.stderr).toContain("union_number (custom_fields.union_no)");
  });

  test("values read as built-in ones: --decimal-comma, --date-format, currency symbols", async () => {
    const file = path.join(dir, "european.csv");
    writeFileSync(
      file,
      "Name;E-Mail;Union number;Safety card expires;Boot allowance;Shirt size\n" +
        "Eva Wolf;eva@example.de;U-0042;31.03.2027;1.250,50 €;M\n",
    );
    const result = await cli([
      "import",
      "workers",
      file,
      "--decimal-comma",
      "--date-format",
      "DD.MM.YYYY",
      "-o",
      "json",
    ]);
    expect(result.stderr).not.toContain("rejected:");
    expect(result.code).toBe(0);
    expect((await workersByEmail()).get("eva@example.de")).toEqual({
      trade: null,
      union_no: "U-0042",
      card_expires: "2027-03-31",
      boot_allowance: "1250.50",
      shirt: "M",
    });
  });

  test.skipIf(!hasSoffice())(
    "an office workbook by LibreOffice with three custom columns and a missing trade imports " +
      "with --create-missing trade and 0 rejects; its export re-imported with --update is all unchanged",
    async () => {
      const source = path.join(dir, "office.csv");
      writeFileSync(
        source,
        "Name,E-Mail,Trade,Union number,Safety card expires,Boot allowance\n" +
          "Lena Berg,lena@office.example,Scaffolder,U-17,2027-06-30,120.5\n" +
          "Omar Haddad,omar@office.example,Electrical,U-18,2026-12-31,99\n" +
          "Ida Novak,ida@office.example,scaffolder,U-19,,75.25\n",
      );
      const converted = spawnSync(
        "soffice",
        ["--headless", "--convert-to", "xlsx", "--outdir", dir, source],
        { timeout: 120_000, env: { ...process.env, HOME: dir } },
      );
      expect(converted.status).toBe(0);
      const workbook = path.join(dir, "office.xlsx");
      const imported = await cli([
        "import",
        "workers",
        workbook,
        "--create-missing",
        "trade",
        "-o",
        "json",
      ]);
      expect(imported.stderr).not.toContain("rejected:");
      expect(imported.code).toBe(0);
      expect(JSON.parse(imported.stdout)).toMatchObject({
        format: "xlsx",
        created: 3,
        rejected: 0,
        created_lookups: [{ column: "trade", name: "Scaffolder" }],
      });
      const workers = await workersByEmail();
      expect(workers.get("lena@office.example")).toEqual({
        trade: "Scaffolder",
        union_no: "U-17",
        card_expires: "2027-06-30",
        boot_allowance: "120.50",
        shirt: null,
      });
      expect(workers.get("ida@office.example")).toMatchObject({
        trade: "Scaffolder",
        card_expires: null,
        boot_allowance: "75.25",
      });

      const exported = path.join(dir, "exported.xlsx");
      exportWorkbook(exported);
      const book = new Workbook();
      await book.xlsx.readFile(exported);
      const sheet = book.worksheets[0]!;
      const header = (sheet.getRow(1).values as unknown[]).slice(1).map(String);
      expect(header).toEqual(expect.arrayContaining(FIELDS.map(([, label]) => label)));
      const lena = [...Array(sheet.rowCount).keys()]
        .map((index) => sheet.getRow(index + 1))
        .find((row) => row.getCell(header.indexOf("email") + 1).value === "lena@office.example")!;
      // Typed cells: a date cell and a number, as the workbook had them.
      expect(lena.getCell(header.indexOf("Safety card expires") + 1).value).toEqual(
        new Date(Date.UTC(2027, 5, 30)),
      );
      expect(lena.getCell(header.indexOf("Boot allowance") + 1).value).toBe(120.5);
      const again = await cli(["import", "workers", exported, "--update", "-o", "json"]);
      expect(again.code).toBe(0);
      const summary = JSON.parse(again.stdout);
      expect(summary).toMatchObject({ updated: 0, created: 0, rejected: 0 });
      expect(summary.unchanged).toBe(summary.rows);

      const csv = await cli(["export", "workers", "--format", "csv"]);
      expect(csv.stdout.split("\n")[0]).toContain(
        "Union number,Safety card expires,Boot allowance,Shirt size",
      );
      const csvFile = path.join(dir, "exported.csv");
      writeFileSync(csvFile, csv.stdout);
      const fromCsv = await cli(["import", "workers", csvFile, "--update", "-o", "json"]);
      expect(fromCsv.code).toBe(0);
      const csvSummary = JSON.parse(fromCsv.stdout);
      expect(csvSummary).toMatchObject({ updated: 0, rejected: 0 });
      expect(csvSummary.unchanged).toBe(csvSummary.rows);

      // One custom cell edited in the spreadsheet: that record changes, in that value alone.
      writeFileSync(csvFile, csv.stdout.replace(",U-17,", ",U-170,"));
      const edited = await cli(["import", "workers", csvFile, "--update", "-o", "json"]);
      expect(edited.code).toBe(0);
      const third = JSON.parse(edited.stdout);
      expect(third).toMatchObject({ updated: 1, rejected: 0 });
      // The rows the last run found unchanged are in the journal: not even read again.
      expect(third.unchanged + third.already_imported).toBe(csvSummary.rows - 1);
      expect((await workersByEmail()).get("lena@office.example")).toMatchObject({
        union_no: "U-170",
        card_expires: "2027-06-30",
      });
    },
  );
});
