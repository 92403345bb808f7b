// Bulk imports through the CLI, as users run them: a large file with bad rows, an interruption and a
// re-run, a free plan, a full quota, a dry-run that predicts the real run, and an export → edit →
// import --upsert round trip.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { erpFor, ndjson, tempDir } from "@erp/testing/cli";
import { closeTestDb, newCompany, testDb } from "@erp/testing/company";
import { ROOT } from "@erp/testing/server";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(180_000);

const suite = useServer();
const dir = tempDir();
afterAll(closeTestDb);

const write = (name: string, lines: string[]): string => {
  const file = path.join(dir, name);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
};
const summaryOf = (stdout: string): any => JSON.parse(stdout);

async function liveCount(
  table: string,
  companyId: number,
  where = "1 = 1",
  params: unknown[] = [],
): Promise<number> {
  const [rows] = await testDb().pool.query(
    `SELECT COUNT(*) AS n FROM ${table} WHERE company_id = ? AND deleted_at IS NULL AND ${where}`,
    [companyId, ...params],
  );
  return Number((rows as { n: number }[])[0]!.n);
}

describe("bulk imports", () => {
  test(
    "20,000 rows with 2% bad, interrupted at about half and re-run: every good row once, " +
      "every bad row in the rejects file",
    async () => {
      const { token, companyId } = await newCompany();
      const state = path.join(dir, "state-big");
      const cli = erpFor(suite.server.baseUrl, token);
      const lines = ["name,email,hourly_rate"];
      const bad = new Set<number>();
      for (let i = 1; i <= 20_000; i++) {
        if (i % 50 === 0) {
          bad.add(i);
          lines.push(`Bad ${i},not-an-email,12.345`);
        } else lines.push(`Worker ${i},w${i}@example.com,${(i % 90) + 10}.50`);
      }
      const file = write("big.csv", lines);

      // The first run, stopped with SIGINT once about half the rows are in the journal.
      const child = Bun.spawn(
        [
          process.execPath,
          path.join(ROOT, "cli/src/main.ts"),
          "import",
          "workers",
          file,
          "-o",
          "json",
          "--batch-size",
          "250",
        ],
        {
          cwd: ROOT,
          env: {
            ...process.env,
            ERP_BASE_URL: suite.server.baseUrl,
            ERP_TOKEN: token,
            XDG_STATE_HOME: state,
          },
          stdout: "pipe",
          stderr: "pipe",
        },
      );
      const journalDir = path.join(state, "erp", "imports");
      const journaled = (): number =>
        existsSync(journalDir)
          ? readdirSync(journalDir).reduce(
              (sum, name) =>
                sum +
                readFileSync(path.join(journalDir, name), "utf8").split("\n").filter(Boolean)
                  .length,
              0,
            )
          : 0;
      while (journaled() < 9_000 && child.exitCode === null) await Bun.sleep(20);
      child.kill("SIGINT");
      const [firstOut, , firstCode] = await Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
        child.exited,
      ]);
      const first = summaryOf(firstOut);
      expect(firstCode).toBe(130);

      const rejects = path.join(dir, "rejects.csv");
      const second = await cli(
        ["import", "workers", file, "-o", "json", "--batch-size", "250", "--rejects", rejects],
        { env: { XDG_STATE_HOME: state } },
      );
      const summary = summaryOf(second.stdout);
      console.log(
        `[bulk import] 20,000 rows: first run stopped with ${first.not_imported} of ${first.rows} ` +
          `rows not imported (${first.created} created, ${first.rows_per_second} rows/s, ` +
          `${first.requests} requests); ` +
          `re-run: ${summary.already_imported} skipped from the journal, ${summary.created} ` +
          `created, ${summary.rejected} rejected, ${summary.requests} requests, ` +
          `${summary.rows_per_second} rows/s`,
      );
      expect(second.code).toBe(3);
      expect(summary.already_imported).toBe(first.created);
      expect(summary.created + summary.already_imported).toBe(20_000 - bad.size);
      // The re-run sent only the rows the first did not finish (and its rejected ones): far fewer requests.
      expect(summary.requests).toBeLessThanOrEqual(Math.ceil((20_000 - first.created) / 250) + 1);

      expect(await liveCount("workers", companyId)).toBe(20_000 - bad.size);
      const [dupes] = await testDb().pool.query(
        "SELECT name FROM workers WHERE company_id = ? GROUP BY name HAVING COUNT(*) > 1",
        [companyId],
      );
      expect(dupes).toEqual([]);
      const rejected = readFileSync(rejects, "utf8").trim().split("\r\n");
      expect(rejected[0]).toBe("name,email,hourly_rate,error");
      expect(rejected).toHaveLength(bad.size + 1);
      expect(rejected[1]).toMatch(/^Bad 50,not-an-email,12\.345,"?validation_failed/);
    },
  );

  test("a free-plan company (120 requests a minute) imports 2,000 rows without a refused row", async () => {
    const { token, companyId } = await newCompany({ plan: "free", quotas: { workers: 5_000 } });
    const file = write("free.csv", [
      "name",
      ...Array.from({ length: 2_000 }, (_, i) => `Free ${i}`),
    ]);
    const result = await erpFor(
      suite.server.baseUrl,
      token,
    )(["import", "workers", file, "-o", "json", "--batch-size", "100"]);
    expect(result.code).toBe(0);
    // 20 batches, and the one look at the plan's quotas that decides whether batches may overlap.
    expect(summaryOf(result.stdout)).toMatchObject({
      created: 2_000,
      rejected: 0,
      stopped: null,
      requests: 21,
    });
    expect(await liveCount("workers", companyId)).toBe(2_000);
  });

  test(
    "a full quota stops the import with a clear message; after deleting records the same " +
      "command imports the rest",
    async () => {
      const { token, companyId } = await newCompany({ plan: "pro", quotas: { workers: 50 } });
      const cli = erpFor(suite.server.baseUrl, token);
      const file = write("quota.csv", [
        "name",
        ...Array.from({ length: 80 }, (_, i) => `Quota ${i + 1}`),
      ]);
      const first = await cli(["import", "workers", file, "-o", "json", "--batch-size", "20"]);
      expect(first.code).toBe(1);
      expect(first.stderr).toContain("quota of your plan is full");
      expect(summaryOf(first.stdout)).toMatchObject({ created: 50 });
      expect(await liveCount("workers", companyId)).toBe(50);

      const listed = ndjson(
        (await cli(["workers", "list", "--all", "--fields", "id", "-o", "ndjson"])).stdout,
      );
      for (const worker of listed.slice(0, 30))
        expect((await cli(["workers", "delete", String(worker.id), "--yes"])).code).toBe(0);
      const second = await cli(["import", "workers", file, "-o", "json", "--batch-size", "20"]);
      expect(second.code).toBe(0);
      expect(summaryOf(second.stdout)).toMatchObject({
        already_imported: 50,
        created: 30,
        rejected: 0,
      });
      expect(await liveCount("workers", companyId, "name LIKE 'Quota %'")).toBe(50);
      const [names] = await testDb().pool.query(
        "SELECT COUNT(DISTINCT name) AS n FROM workers WHERE company_id = ?",
        [companyId],
      );
      expect(Number((names as { n: number }[])[0]!.n)).toBe(80);
    },
  );

  test(
    "--dry-run finds exactly what the real run refuses: a duplicate code is rejected (the " +
      "first wins), a quota overrun is not imported",
    async () => {
      const { token } = await newCompany({ plan: "pro", quotas: { projects: 3 } });
      const cli = erpFor(suite.server.baseUrl, token);
      const file = write("dry.csv", [
        "name,code",
        "First,DUP",
        "Second,DUP",
        "Third,",
        "Fourth,",
        "Fifth,",
      ]);
      const outcome = async (
        args: string[],
      ): Promise<{ rejected: number[]; notImported: number }> => {
        const report = path.join(dir, `report-${crypto.randomUUID()}.ndjson`);
        const result = await cli([...args, "--report", report, "-o", "json"]);
        expect(result.code).toBe(args.includes("--dry-run") ? 3 : 1);
        return {
          rejected: ndjson(readFileSync(report, "utf8"))
            .map((line) => line.row)
            .sort((a, b) => a - b),
          notImported: summaryOf(result.stdout).not_imported,
        };
      };
      const predicted = await outcome(["import", "projects", file, "--dry-run"]);
      const actual = await outcome(["import", "projects", file]);
      expect(predicted).toEqual({ rejected: [2], notImported: 1 });
      expect(actual).toEqual(predicted);
      const projects = ndjson((await cli(["projects", "list", "-o", "ndjson"])).stdout);
      expect(projects.find((p) => p.code === "DUP")?.name).toBe("First");
    },
  );

  test(
    "--dry-run of a file in many batches finds what the real run refuses: duplicate codes " +
      "and a quota overrun across batches",
    async () => {
      const { token, companyId } = await newCompany({ plan: "pro", quotas: { projects: 200 } });
      const cli = erpFor(suite.server.baseUrl, token);
      expect((await cli(["projects", "create", "name=Already there", "code=P-EXIST"])).code).toBe(
        0,
      );
      // 300 rows in batches of 50; 199 projects still fit, so the quota runs out in the fifth batch.
      // The real run stops there and counts as not imported the rows it had read (the sixth batch,
      // read while the fifth was in flight): with the overrun in the last batch but one, that is
      // every row left, as the dry-run counts them.
      const rows = Array.from({ length: 300 }, (_, i) => `Project ${i + 1},P-${i + 1},`);
      const set = (row: number, line: string): void => {
        rows[row - 1] = line;
      };
      set(5, "Refused first,DUP-A,OPEN"); // refused, so its code stays free for row 75
      set(30, "First B,DUP-B,");
      set(75, "First A,DUP-A,");
      set(100, ",P-100,");
      set(120, "Second B,DUP-B,");
      set(140, "Existing code,P-EXIST,");
      set(160, "Second A,DUP-A,");
      set(230, "Bad status after the quota,P-230,OPEN");
      set(240, "Duplicate after the quota,DUP-B,");
      const file = write("dry-batches.csv", ["name,code,status", ...rows]);
      const outcome = async (
        args: string[],
      ): Promise<{ rejected: number[]; notImported: number; code: number }> => {
        const report = path.join(dir, `report-${crypto.randomUUID()}.ndjson`);
        const result = await cli([
          "import",
          "projects",
          file,
          "--batch-size",
          "50",
          ...args,
          "--report",
          report,
          "-o",
          "json",
        ]);
        return {
          rejected: ndjson(readFileSync(report, "utf8"))
            .map((line) => line.row)
            .sort((a, b) => a - b),
          notImported: summaryOf(result.stdout).not_imported,
          code: result.code,
        };
      };
      const predicted = await outcome(["--dry-run"]);
      const actual = await outcome([]);
      console.log(
        `[bulk import] dry-run of 300 rows in batches of 50: rejected rows ` +
          `${predicted.rejected.join(", ")}, ${predicted.notImported} not imported; real run: ` +
          `rejected rows ${actual.rejected.join(", ")}, ${actual.notImported} not imported`,
      );
      expect(predicted).toEqual({
        rejected: [5, 100, 120, 140, 160, 230, 240],
        notImported: 300 - 7 - 199,
        code: 3,
      });
      expect(actual).toEqual({ ...predicted, code: 1 });
      expect(await liveCount("projects", companyId)).toBe(200);
      const projects = ndjson(
        (await cli(["projects", "list", "--all", "--fields", "name,code", "-o", "ndjson"])).stdout,
      );
      expect(
        projects
          .filter((p) => p.code === "DUP-A" || p.code === "DUP-B")
          .map((p) => p.name)
          .sort(),
      ).toEqual(["First A", "First B"]);
    },
  );

  test(
    "reference columns by name: trade by its name, client by name or external_id; an unknown " +
      "name is a rejected row",
    async () => {
      const { token } = await newCompany();
      const cli = erpFor(suite.server.baseUrl, token);
      const trades = JSON.parse((await cli(["trades", "list", "-o", "json"])).stdout) as {
        id: number;
        name: string;
      }[];
      const trade = trades[0]!;
      const workers = write("by-name.csv", [
        "name,trade",
        `Ann,${trade.name.toUpperCase()}`,
        "Bob,No Such Trade",
        "Cy,",
      ]);
      const result = await cli([
        "import",
        "workers",
        workers,
        "-o",
        "json",
        "--report",
        path.join(dir, "names.ndjson"),
      ]);
      expect(result.code).toBe(3);
      expect(summaryOf(result.stdout)).toMatchObject({ created: 2, rejected: 1 });
      const rejected = ndjson(readFileSync(path.join(dir, "names.ndjson"), "utf8"));
      expect(rejected.map((r) => [r.row, r.errors[0].field, r.errors[0].code])).toEqual([
        [2, "trade", "unknown_reference"],
      ]);
      const listed = ndjson((await cli(["workers", "list", "-o", "ndjson"])).stdout);
      expect(listed.find((w) => w.name === "Ann")?.trade_id).toBe(trade.id);

      await cli([
        "import",
        "clients",
        write("clients.csv", ["name,external_id", "Northwind,crm-77"]),
        "-o",
        "json",
      ]);
      const estimates = write("estimates.csv", [
        "title,amount,client",
        "By external id,10,crm-77",
        "By name,12,northwind",
      ]);
      expect(
        summaryOf((await cli(["import", "estimates", estimates, "-o", "json"])).stdout),
      ).toMatchObject({ created: 2, rejected: 0 });
      const client = ndjson((await cli(["clients", "list", "-o", "ndjson"])).stdout)[0];
      const linked = ndjson((await cli(["estimates", "list", "-o", "ndjson"])).stdout).map(
        (e) => e.client_id,
      );
      expect(linked).toEqual([client.id, client.id]);
    },
  );

  test("export → edit → import --upsert updates in place: no new records", async () => {
    const { token, companyId } = await newCompany();
    const cli = erpFor(suite.server.baseUrl, token);
    const file = write("crm.csv", [
      "name,external_id,email",
      "Acme,crm-1,a@example.com",
      "Beta,crm-2,b@example.com",
      "Gamma,crm-3,",
    ]);
    expect((await cli(["import", "clients", file, "-o", "json"])).code).toBe(0);
    const exported = await cli(["export", "clients", "--format", "csv"]);
    const lines = exported.stdout.trim().split(/\r?\n/);
    const edited = lines.map((line) => line.replace("Beta", "Beta Renamed"));
    const again = await cli([
      "import",
      "clients",
      write("edited.csv", edited),
      "--upsert",
      "-o",
      "json",
    ]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("skipping read-only column");
    expect(summaryOf(again.stdout)).toMatchObject({
      created: 0,
      updated: 1,
      unchanged: 2,
      rejected: 0,
    });
    expect(await liveCount("clients", companyId)).toBe(3);
    const clients = ndjson((await cli(["clients", "list", "-o", "ndjson"])).stdout);
    expect(clients.map((c) => c.name).sort()).toEqual(["Acme", "Beta Renamed", "Gamma"]);
  });
});
