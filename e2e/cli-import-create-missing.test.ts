// `erp import … --create-missing trade,category` (docs/cli.md, "Missing trades and categories"):
// each trade or equipment category the file names and the company lacks is created once, before
// the first row that needs it, in the same exactly-once run: a dry-run lists what it would create,
// re-runs, Ctrl-C, kill -9, a lost journal and two imports of one file at once create nothing
// twice (neither trades nor rows, whose custom column goes in with them). Without the flag, a row
// naming an unknown value is rejected with the closest names.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { RowDataPacket } from "mysql2";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type CliOptions, erpFor, startErpFor, tempDir } from "@erp/testing/cli";
import { newCompany, newToken, testDb } from "@erp/testing/company";
import { between, untilBefore } from "@erp/testing/interruptions";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(120_000);

const suite = useServer();
const dir = tempDir();

/** A CSV file of `rows` (cells without commas or quotes) under the header. */
function csv(name: string, header: string[], rows: string[][]): string {
  const file = path.join(dir, name);
  writeFileSync(file, `${[header, ...rows].map((row) => row.join(",")).join("\n")}\n`);
  return file;
}

/** A state directory of its own: each test's journal starts empty. */
function ownState(): CliOptions & { state: string } {
  const state = path.join(tempDir(), "state");
  return { state, env: { XDG_STATE_HOME: state } };
}

/** The company's live lookup values, by name as stored, with how many live values each name has. */
async function namesOf(table: string, companyId: number): Promise<Map<string, number>> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    `SELECT LOWER(name) AS name, COUNT(*) AS n FROM ${table} WHERE company_id = ? AND deleted_at IS NULL GROUP BY LOWER(name)`,
    [companyId],
  );
  return new Map(rows.map((row) => [String(row.name), Number(row.n)]));
}

/** The company's workers: email → the name of their trade (lower case), one entry per stored row. */
async function workersOf(companyId: number): Promise<[string, string | null][]> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT w.email, LOWER(t.name) AS trade FROM workers w " +
      "LEFT JOIN trades t ON t.company_id = w.company_id AND t.id = w.trade_id " +
      "WHERE w.company_id = ? AND w.deleted_at IS NULL ORDER BY w.email",
    [companyId],
  );
  return rows.map((row) => [String(row.email), row.trade === null ? null : String(row.trade)]);
}

describe("a name the company lacks, without --create-missing", () => {
  test("the row is rejected naming the closest existing names; nothing is created", async () => {
    const { token, companyId } = await newCompany();
    const before = await namesOf("trades", companyId);
    const file = csv(
      "typos.csv",
      ["name", "email", "trade"],
      [
        ["Ann", "ann@example.com", "Electrcal"],
        ["Bo", "bo@example.com", "Rigger"],
        ["Cy", "cy@example.com", " plumbing "],
      ],
    );
    const report = path.join(dir, "typos.ndjson");
    const result = await erpFor(suite.server.baseUrl, token)(
      ["import", "workers", file, "--report", report, "-o", "json"],
      ownState(),
    );
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({
      created: 1,
      rejected: 2,
      created_lookups: [],
    });
    expect(result.stderr).toContain('trade: no trade "Electrcal"; did you mean Electrical?');
    expect(result.stderr).toContain('trade: no trade "Rigger"');
    expect(result.stderr).not.toContain('"Rigger"; did you mean');
    expect(await namesOf("trades", companyId)).toEqual(before);

    const equipment = csv("categories.csv", ["name", "category"], [["Lift 1", "Aeriel lifts"]]);
    const refused = await erpFor(suite.server.baseUrl, token)(
      ["import", "equipment", equipment, "-o", "json"],
      ownState(),
    );
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(
      'category: no category "Aeriel lifts"; did you mean Aerial lifts?',
    );
  });

  test("--create-missing takes only the lookups' columns, and only with a CSV or XLSX file", async () => {
    const { token } = await newCompany();
    const cli = erpFor(suite.server.baseUrl, token);
    const file = csv("plain.csv", ["name", "trade"], [["Di", "Rigger"]]);
    const wrong = await cli(["import", "workers", file, "--create-missing", "trade,client"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("not client");
    const lines = path.join(dir, "plain.ndjson");
    writeFileSync(lines, `${JSON.stringify({ name: "Di", trade_id: 1 })}\n`);
    const ndjson = await cli(["import", "workers", lines, "--create-missing", "trade"]);
    expect(ndjson.code).toBe(2);
    expect(ndjson.stderr).toContain("NDJSON rows give their ids");
  });
});

describe("--create-missing", () => {
  test(
    "the dry-run lists what it would create and creates nothing; the run creates each value once " +
      "(any case), before the first row naming it; a re-run and a lost journal create nothing",
    async () => {
      const { token, companyId } = await newCompany();
      const cli = erpFor(suite.server.baseUrl, token);
      const state = ownState();
      const before = await namesOf("trades", companyId);
      const file = csv(
        "new-trades.csv",
        ["name", "email", "trade"],
        [
          ["Al", "al@example.com", "Electrical"],
          ["Bea", "bea@example.com", "Rigger"],
          ["Cal", "cal@example.com", " RIGGER "],
          ["Dot", "dot@example.com", "Scaffolder"],
          ["Eve", "eve@example.com", "rigger"],
        ],
      );
      const args = ["import", "workers", file, "--create-missing", "trade", "-o", "json"];

      const dry = await cli([...args, "--dry-run"], state);
      expect(dry.code).toBe(0);
      expect(JSON.parse(dry.stdout)).toMatchObject({
        valid: 5,
        rejected: 0,
        created_lookups: [
          { column: "trade", name: "Rigger", id: null },
          { column: "trade", name: "Scaffolder", id: null },
        ],
      });
      expect(dry.stderr).toContain('would create trade "Rigger", trade "Scaffolder"');
      expect(await namesOf("trades", companyId)).toEqual(before);
      expect(await workersOf(companyId)).toEqual([]);

      const run = await cli(args, state);
      expect(run.code).toBe(0);
      const summary = JSON.parse(run.stdout);
      expect(summary).toMatchObject({ created: 5, rejected: 0 });
      expect(summary.created_lookups.map((one: { name: string }) => one.name)).toEqual([
        "Rigger",
        "Scaffolder",
      ]);
      expect(run.stderr).toContain(`created trade "Rigger" (id ${summary.created_lookups[0].id})`);
      const after = await namesOf("trades", companyId);
      expect(after).toEqual(new Map([...before, ["rigger", 1], ["scaffolder", 1]]));
      expect(await workersOf(companyId)).toEqual([
        ["al@example.com", "electrical"],
        ["bea@example.com", "rigger"],
        ["cal@example.com", "rigger"],
        ["dot@example.com", "scaffolder"],
        ["eve@example.com", "rigger"],
      ]);

      // Each trade went in before the first worker naming it, in the company's change feed.
      const api = suite.api.as(token);
      const feed = (await api.get("/v1/events?limit=100")).body.data as {
        type: string;
        data: { record: { name: string } };
      }[];
      const at = (type: string, name: string): number =>
        feed.findIndex((event) => event.type === type && event.data.record.name === name);
      expect(at("trade.created", "Rigger")).toBeGreaterThanOrEqual(0);
      expect(at("trade.created", "Rigger")).toBeLessThan(at("worker.created", "Bea"));
      expect(at("trade.created", "Scaffolder")).toBeLessThan(at("worker.created", "Dot"));

      const again = await cli(args, state);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ already_imported: 5, created_lookups: [] });
      rmSync(state.state, { recursive: true, force: true });
      const lost = await cli(args, state);
      expect(lost.code).toBe(0);
      expect(JSON.parse(lost.stdout)).toMatchObject({ already_imported: 5, created_lookups: [] });
      expect(await namesOf("trades", companyId)).toEqual(after);
      expect((await workersOf(companyId)).length).toBe(5);
    },
  );

  test("a category of equipment, and a value the API refuses rejects the rows naming it", async () => {
    const { token, companyId } = await newCompany();
    const long = "X".repeat(101);
    const file = csv(
      "machines.csv",
      ["name", "serial_number", "category"],
      [
        ["Driver 1", "D-1", "Pile drivers"],
        ["Driver 2", "D-2", "pile DRIVERS"],
        ["Odd", "O-1", long],
      ],
    );
    const result = await erpFor(suite.server.baseUrl, token)(
      ["import", "equipment", file, "--create-missing", "category", "-o", "json"],
      ownState(),
    );
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({
      created: 2,
      rejected: 1,
      created_lookups: [{ column: "category", name: "Pile drivers" }],
    });
    expect(result.stderr).toContain(`category: no category "${long}", and it cannot be created`);
    const categories = await namesOf("equipment_categories", companyId);
    expect(categories.get("pile drivers")).toBe(1);
    expect(categories.has(long.toLowerCase())).toBe(false);
  });

  test("a token without lookups:write: the rows naming a missing trade are rejected saying why", async () => {
    const { companyId } = await newCompany();
    const token = await newToken(companyId, { scopes: ["workers:write"] });
    const file = csv(
      "narrow.csv",
      ["name", "email", "trade"],
      [
        ["Fay", "fay@example.com", "Rigger"],
        ["Gil", "gil@example.com", "Electrical"],
      ],
    );
    const result = await erpFor(suite.server.baseUrl, token)(
      ["import", "workers", file, "--create-missing", "trade", "-o", "json"],
      ownState(),
    );
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({ created: 1, rejected: 1 });
    expect(result.stderr).toContain('no trade "Rigger", and it cannot be created');
    expect(result.stderr).toContain("insufficient_scope");
    expect((await namesOf("trades", companyId)).has("rigger")).toBe(false);
  });
});

describe("--create-missing exactly once, whatever happens", () => {
  const ROWS = 1500;
  /** Row k names a new trade every 100 rows (each first named there), else a seeded one. */
  const tradeOf = (k: number): string =>
    k % 3 === 0 ? `New trade ${Math.floor(k / 100)}` : k % 3 === 1 ? "Electrical" : "plumbing";
  const rows = Array.from({ length: ROWS }, (_, k) => [
    `Worker ${k}`,
    `worker${k}@example.com`,
    k % 100 === 0 ? `new TRADE ${k / 100}` : tradeOf(k),
    `U-${k}`,
  ]);
  const HEADER = ["name", "email", "trade", "Union number"];
  const NEW_TRADES = ROWS / 100;

  /** A company with the custom field the files' fourth column is headed by. */
  async function companyWithUnionNumbers(): Promise<{ token: string; companyId: number }> {
    const { token, companyId } = await newCompany();
    const defined = await suite.api.as(token).post("/v1/custom-fields", {
      resource: "workers",
      key: "union_no",
      label: "Union number",
      type: "text",
    });
    expect(defined.status).toBe(201);
    return { token, companyId };
  }

  /** Every worker's union number, by email, read through the API on after_id. */
  async function unionNumbers(token: string): Promise<Map<string, unknown>> {
    const api = suite.api.as(token);
    const found = new Map<string, unknown>();
    for (let after = 0; ; ) {
      const page = await api.get(`/v1/workers?limit=100&after_id=${after}`);
      const data = page.body.data as { id: number; email: string; custom_fields: any }[];
      for (const worker of data) found.set(worker.email, worker.custom_fields.union_no);
      if (data.length < 100) return found;
      after = data.at(-1)!.id;
    }
  }

  async function expectEachOnce(companyId: number, token: string): Promise<void> {
    const names = await namesOf("trades", companyId);
    for (let n = 0; n < NEW_TRADES; n++) expect(names.get(`new trade ${n}`)).toBe(1);
    const workers = await workersOf(companyId);
    expect(workers.length).toBe(ROWS);
    expect(new Set(workers.map(([email]) => email)).size).toBe(ROWS);
    expect(new Map(workers)).toEqual(
      new Map(rows.map(([, email, trade]) => [email!, trade!.trim().toLowerCase()])),
    );
    expect(await unionNumbers(token)).toEqual(
      new Map(rows.map(([, email, , union]) => [email!, union])),
    );
  }

  test("Ctrl-C, kill -9 and a lost journal between runs: every row (its custom value too) and every created trade once", async () => {
    const { token, companyId } = await companyWithUnionNumbers();
    const file = csv("interrupted.csv", HEADER, rows);
    const state = ownState();
    const args = [
      "import",
      "workers",
      file,
      "--create-missing",
      "trade",
      "--batch-size",
      "20",
      "--concurrency",
      "1",
      "-o",
      "json",
    ];
    const start = startErpFor(suite.server.baseUrl, token);
    const newTrades = async (): Promise<number> =>
      [...(await namesOf("trades", companyId)).keys()].filter((name) =>
        name.startsWith("new trade"),
      ).length;

    const first = start(args, state);
    const interruptAt = between(2, 5);
    await untilBefore("the first Ctrl-C", first, async () => (await newTrades()) >= interruptAt);
    first.process.kill("SIGINT");
    const stopped = await first.finished;
    expect(stopped.code).toBe(130);
    expect(JSON.parse(stopped.stdout).not_imported).toBeGreaterThan(0);

    const second = start(args, state);
    const killAt = between(interruptAt + 2, 10);
    await untilBefore("kill -9", second, async () => (await newTrades()) >= killAt);
    second.process.kill("SIGKILL");
    await second.finished;

    rmSync(state.state, { recursive: true, force: true });
    const third = await start(args, state).finished;
    expect(third.code).toBe(0);
    const summary = JSON.parse(third.stdout);
    expect(summary.rejected).toBe(0);
    expect(summary.created + summary.already_imported).toBe(ROWS);
    expect(summary.created_lookups.length).toBeLessThan(NEW_TRADES);
    await expectEachOnce(companyId, token);
  });

  test("two imports of one file at once: every row (its custom value too) and every created trade once", async () => {
    const { token, companyId } = await companyWithUnionNumbers();
    const file = csv("twice.csv", HEADER, rows);
    const start = startErpFor(suite.server.baseUrl, token);
    const args = ["import", "workers", file, "--create-missing", "trade", "--batch-size", "50"];
    const results = await Promise.all([
      start([...args, "-o", "json"], ownState()).finished,
      start([...args, "-o", "json"], ownState()).finished,
    ]);
    for (const result of results) {
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout).rejected).toBe(0);
    }
    await expectEachOnce(companyId, token);
  });
});
