// The CLI guides a person: `create --help` lists the fields the API takes, the write and read
// commands show examples that run as printed, tables line up names in wide (CJK) characters, and
// `export --bom` writes CSV that spreadsheet programs read as UTF-8.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import path from "node:path";
import { erp, erpFor, ndjson } from "@erp/testing/cli";
import { RECORD_COLLECTIONS, segmentOf } from "@erp/testing/collections";
import { newCompany } from "@erp/testing/company";
import { ROOT } from "@erp/testing/server";
import { useServer } from "@erp/testing/suite";
import { COLLECTIONS } from "../sdk/mod.ts";

setDefaultTimeout(60_000);

const suite = useServer();
let cli: ReturnType<typeof erpFor>;
let document: Record<string, any>;

beforeAll(async () => {
  cli = erpFor(suite.server.baseUrl, (await newCompany()).token);
  document = (await suite.api.get("/v1/openapi.json")).body;
});

/** Every collection of records: the ones `create` and `update` guide. */
const RESOURCES = RECORD_COLLECTIONS.map(segmentOf);

/** The hint `create --help` shows for a field of this kind (its schema in the document). */
function hintOf(kind: string, property: Record<string, any>): string | RegExp {
  switch (kind) {
    case "date":
      return "date YYYY-MM-DD";
    case "email":
      return "email";
    case "money":
      return "amount, e.g. 1250.00";
    case "reference":
      return "id";
    case "boolean":
      return "true|false";
    case "enum":
      return (property.enum as unknown[]).filter((value) => value !== null).join("|");
    default:
      return /^text/;
  }
}

/** The lines of a help text's EXAMPLES section, without their `# …` notes. */
const examplesOf = (help: string): string[] =>
  (help.split("\nEXAMPLES\n")[1] ?? "")
    .split("\n")
    .filter((line) => line.startsWith("  erp "))
    .map((line) => line.trim().replace(/\s+#.*$/, ""));

/** Splits a command line as a shell would: words, "double" and 'single' quoted strings. */
const words = (line: string): string[] =>
  [...line.matchAll(/([^\s"']+)|"([^"]*)"|'([^']*)'/g)].reduce<string[]>(
    (all, match, index, matches) => {
      const word = match[1] ?? match[2] ?? match[3] ?? "";
      // `name="Example worker"` is one word: a quoted part glued to what precedes it.
      const glued =
        index > 0 && matches[index - 1]!.index! + matches[index - 1]![0].length === match.index;
      if (glued) all[all.length - 1] += word;
      else all.push(word);
      return all;
    },
    [],
  );

describe("help", () => {
  test(
    "erp <resource> create --help lists every writable field of the API's create body, the " +
      "required ones marked, each with the hint of its kind, and examples",
    async () => {
      for (const name of RECORD_COLLECTIONS) {
        const resource = segmentOf(name);
        const kinds: Readonly<Record<string, string>> = COLLECTIONS[name].kinds;
        const help = (await erp([resource, "create", "--help"])).stdout;
        const ref = document.paths[`/v1/${resource}`].post.requestBody.content["application/json"]
          .schema.$ref as string;
        const body = document.components.schemas[ref.split("/").at(-1)!];
        const listed = [
          ...(help.split("\nFIELDS")[1] ?? "")
            .split("\nEXAMPLES")[0]!
            .matchAll(/^ {2}(\w+) +(.+)$/gm),
        ].map((m) => [m[1]!, m[2]!] as const);
        expect(listed.map(([field]) => field)).toEqual(Object.keys(body.properties));
        expect(
          listed.filter(([, hint]) => hint.endsWith(", required")).map(([field]) => field),
        ).toEqual(body.required);
        for (const [field, hint] of listed)
          expect(hint.replace(/, required$/, ""), `${resource} ${field}`).toMatch(
            hintOf(kinds[field]!, body.properties[field]),
          );
        expect(examplesOf(help)[0]).toStartWith(`erp ${resource} create `);
      }
    },
  );

  test(
    "create, update, list and export show examples for every resource, and each create " +
      "example runs as printed",
    async () => {
      for (const resource of RESOURCES) {
        const [create, update, list, exported] = await Promise.all([
          erp([resource, "create", "--help"]),
          erp([resource, "update", "--help"]),
          erp([resource, "list", "--help"]),
          erp(["export", resource, "--help"]),
        ]);
        for (const [name, help] of [
          ["create", create],
          ["update", update],
          ["list", list],
          ["export", exported],
        ] as const) {
          expect(examplesOf(help.stdout).length, `${resource} ${name}`).toBeGreaterThanOrEqual(2);
        }
        expect(update.stdout, resource).toContain("\nFIELDS");
        for (const line of examplesOf(create.stdout).filter(
          (example) => !example.includes("--file"),
        )) {
          const run = await cli([...words(line).slice(1), "-o", "json"]);
          expect(run.code, `${line}\n${run.stderr}`).toBe(0);
          expect(JSON.parse(run.stdout).dry_run, line).toBe(line.includes("--dry-run"));
        }
      }
    },
  );
});

/** The CLI for a company of its own: the records a test lists are its own. */
const freshCli = async (): Promise<ReturnType<typeof erpFor>> =>
  erpFor(suite.server.baseUrl, (await newCompany()).token);

/** What the CLI wrote to stdout, byte for byte (decoding text would drop a byte-order mark). */
async function stdoutBytes(args: string[], token: string): Promise<Uint8Array> {
  const child = Bun.spawn([process.execPath, path.join(ROOT, "cli/src/main.ts"), ...args], {
    env: { ...process.env, ERP_BASE_URL: suite.server.baseUrl, ERP_TOKEN: token },
    stdout: "pipe",
    stderr: "ignore",
  });
  const bytes = new Uint8Array(await new Response(child.stdout).arrayBuffer());
  expect(await child.exited).toBe(0);
  return bytes;
}

describe("output", () => {
  test("a table lines up a CJK name: every column starts at the same terminal column on every row", async () => {
    const cli = await freshCli();
    for (const name of ["山田太郎", "Ann Lee", "José Ñúñez", "김민준 (Kim)"])
      await cli(["workers", "create", `name=${name}`, "email=x@example.com"]);
    const table = (
      await cli(["workers", "list", "--fields", "name,email", "-o", "table"], {
        env: { NO_COLOR: "1" },
      })
    ).stdout;
    const rows = table.trimEnd().split("\n");
    expect(rows).toHaveLength(5);
    // Where EMAIL's column starts, counted in terminal columns (a CJK character takes two).
    const emailColumn = (row: string): number =>
      Bun.stringWidth(row.slice(0, row.search(/(EMAIL|x@example\.com)$/)));
    expect(new Set(rows.map(emailColumn)).size, table).toBe(1);
    expect(table).toContain("山田太郎");
  });

  test("a cell wider than 40 terminal columns is cut at 40, wide characters counted twice", async () => {
    const cli = await freshCli();
    await cli(["clients", "create", `name=${"東京建設株式会社".repeat(4)}`]);
    const table = (
      await cli(["clients", "list", "--fields", "name", "-o", "table"], { env: { NO_COLOR: "1" } })
    ).stdout;
    const cell = table.split("\n")[1]!.split(/\s{2,}/)[1]!;
    expect(cell.endsWith("…")).toBe(true);
    expect(Bun.stringWidth(cell)).toBeLessThanOrEqual(40);
  });

  test(
    "export --format csv --bom starts with a UTF-8 byte-order mark, then the header; --bom " +
      "without csv is a usage error",
    async () => {
      const { token } = await newCompany();
      const cli = erpFor(suite.server.baseUrl, token);
      await cli(["subcontractors", "create", "name=Électricité Dupont"]);
      const plain = await stdoutBytes(
        ["export", "subcontractors", "--format", "csv", "--fields", "name"],
        token,
      );
      const marked = await stdoutBytes(
        ["export", "subcontractors", "--format", "csv", "--fields", "name", "--bom"],
        token,
      );
      expect(new TextDecoder().decode(plain)).toStartWith("id,name\r\n");
      expect([...marked]).toEqual([0xef, 0xbb, 0xbf, ...plain]);
      const ndjsonBom = await cli(["export", "subcontractors", "--bom"]);
      expect(ndjsonBom.code).toBe(2);
      expect(ndjsonBom.stderr).toContain("--format csv");
      expect(ndjson((await cli(["export", "subcontractors"])).stdout).map((s) => s.name)).toEqual([
        "Électricité Dupont",
      ]);
    },
  );
});
