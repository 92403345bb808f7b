// `erp import` interrupted at random moments in five ways, one after another on one 20,000-row file
// with 2% bad rows, for one company: SIGINT once, SIGINT twice, kill -9 of the CLI, kill -9 of the
// server (restarted on its port while the CLI waits), and a proxy that drops the connection once
// the server has answered. Between runs one rejected row is fixed in the file, and the journal is
// lost once. Every good row ends up stored exactly once, and the last run's rejects file holds
// exactly the rows still bad, as the file has them.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import type { RowDataPacket } from "mysql2";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type RunningCli, startErpFor, tempDir } from "@erp/testing/cli";
import { closeTestDb, newCompany, testDb } from "@erp/testing/company";
import { parseCsv } from "@erp/testing/csv";
import { dropProxy } from "@erp/testing/drop-proxy";
import { between, killableServers, untilBefore } from "@erp/testing/interruptions";

setDefaultTimeout(180_000);

const ROWS = 20_000;
const servers = killableServers();
const server = servers.start;
afterAll(async () => {
  await servers.killAll();
  await closeTestDb();
});

test(
  "20,000 rows (2% bad) interrupted five ways, a row fixed between runs and the journal lost " +
    "once: every good row stored once, every bad row in the rejects file",
  async () => {
    let api = await server();
    const { token, companyId } = await newCompany();
    const dir = tempDir();
    const state = path.join(dir, "state");
    const journalDir = path.join(state, "erp", "imports");
    const file = path.join(dir, "workers.csv");

    // Every 50th row has an email the API refuses, until the test fixes it in the file.
    const bad = new Set(Array.from({ length: ROWS / 50 }, (_, k) => (k + 1) * 50));
    const cells = (row: number): string[] => [
      `Worker ${row}`,
      bad.has(row) ? `worker${row}(at)example.com` : `worker${row}@example.com`,
      `${(row % 90) + 10}.50`,
    ];
    const writeFile = (): void =>
      writeFileSync(
        file,
        `name,email,hourly_rate\n${Array.from({ length: ROWS }, (_, k) => cells(k + 1).join(",")).join("\n")}\n`,
      );
    writeFile();
    const good = (): number => ROWS - bad.size;

    /** Rows the journals hold: the rows that went through, in file order. */
    const journaled = (): number => {
      if (!existsSync(journalDir)) return 0;
      let lines = 0;
      for (const name of readdirSync(journalDir)) {
        const text = readFileSync(path.join(journalDir, name));
        for (let at = text.indexOf(10); at >= 0; at = text.indexOf(10, at + 1)) lines += 1;
      }
      return lines;
    };
    /** Every row up to here was sent (and the bad ones rejected) by some run. */
    let reached = 0;
    const fixOne = (): number => {
      const rejected = [...bad].filter((row) => row <= reached);
      const row = rejected[between(0, rejected.length - 1)]!;
      bad.delete(row);
      writeFile();
      return row;
    };

    const stored = async (): Promise<{ rows: number; distinct: number }> => {
      const [counted] = await testDb().pool.query<RowDataPacket[]>(
        "SELECT COUNT(*) AS n, COUNT(DISTINCT email) AS d FROM workers WHERE company_id = ? AND deleted_at IS NULL",
        [companyId],
      );
      return { rows: Number(counted[0]!.n), distinct: Number(counted[0]!.d) };
    };
    const expectNoDuplicates = async (): Promise<number> => {
      const now = await stored();
      expect(now.rows).toBe(now.distinct);
      return now.rows;
    };

    const start = (baseUrl: string, extra: string[] = []): RunningCli & { started: number } => ({
      ...startErpFor(baseUrl, token)(["import", "workers", file, "-o", "json", ...extra], {
        env: { XDG_STATE_HOME: state },
      }),
      started: performance.now(),
    });
    const seconds = (cli: { started: number }): string =>
      ((performance.now() - cli.started) / 1000).toFixed(1);
    const figures = (summary: any): string =>
      `rows ${summary.rows}, created ${summary.created}, already_imported ` +
      `${summary.already_imported}, rejected ${summary.rejected}, not_imported ` +
      `${summary.not_imported}, ${summary.seconds} s`;
    const log = (line: string): void => console.log(`[import interrupted] ${line}`);

    // (a) SIGINT once: the batch in flight finishes, the rest is "not imported".
    const a = start(api.baseUrl);
    const aAt = between(1_500, 4_000);
    await untilBefore(`${aAt} rows were journaled`, a, () => journaled() >= aAt);
    a.process.kill("SIGINT");
    const aResult = await a.finished;
    expect(aResult.code).toBe(130);
    const aSummary = JSON.parse(aResult.stdout);
    reached = journaled();
    log(
      `(a) SIGINT once at ${aAt} journaled rows: ${figures(aSummary)}; stored ${(await stored()).rows}`,
    );
    expect(aSummary.created).toBe(await expectNoDuplicates());
    expect(aSummary.created).toBe(reached);
    expect(aSummary.already_imported).toBe(0);
    expect(aSummary.rows).toBe(aSummary.created + aSummary.rejected + aSummary.not_imported);
    // Every row of the file is accounted for: the ones not sent are not imported.
    expect(aSummary.rows).toBe(ROWS);
    expect(aSummary.not_imported).toBeGreaterThan(0);

    // (b) SIGINT twice: quits at once, mid-batch, printing nothing.
    const fixedB = fixOne();
    const b = start(api.baseUrl);
    const bAt = reached + between(1_000, 3_000);
    await untilBefore(`${bAt} rows were journaled`, b, () => journaled() >= bAt);
    b.process.kill("SIGINT");
    await Bun.sleep(between(0, 30));
    if (b.process.exitCode === null) b.process.kill("SIGINT");
    const bResult = await b.finished;
    expect(bResult.code).toBe(130);
    reached = journaled();
    log(
      `(b) row ${fixedB} fixed; SIGINT twice at ${bAt} journaled rows, after ${seconds(b)} s: ` +
        `${reached} journaled, stored ${await expectNoDuplicates()}`,
    );

    // (c) kill -9 of the CLI, at a random point of a batch.
    const fixedC = fixOne();
    const c = start(api.baseUrl);
    const cAt = reached + between(1_000, 3_000);
    await untilBefore(`${cAt} rows were journaled`, c, () => journaled() >= cAt);
    await Bun.sleep(between(0, 150));
    c.process.kill("SIGKILL");
    await c.finished;
    expect(c.process.signalCode).toBe("SIGKILL");
    reached = journaled();
    log(
      `(c) row ${fixedC} fixed; kill -9 of the CLI at ${cAt}+ journaled rows, after ${seconds(c)} ` +
        `s: ${reached} journaled, stored ${await expectNoDuplicates()}`,
    );

    // (d) The journal is lost; kill -9 of the server mid-import and a restart on its port: the CLI
    // waits and carries on by itself. It is stopped with SIGINT once it has gone on a while, unless
    // it reads to the end first: what it had read of a deleted journal goes fast, and so may the rest.
    const fixedD = fixOne();
    rmSync(journalDir, { recursive: true, force: true });
    const before = (await stored()).rows;
    const d = start(api.baseUrl);
    const dAt = before + between(500, 2_500);
    await untilBefore(`${dAt} rows were journaled again`, d, () => journaled() >= dAt);
    await Bun.sleep(between(0, 150));
    api.process.kill("SIGKILL");
    await api.process.exited;
    const atKill = await expectNoDuplicates();
    const down = between(200, 1_500);
    await Bun.sleep(down);
    api = await server(api.port);
    const resumedFrom = journaled();
    while (journaled() < resumedFrom + 1_000 && d.process.exitCode === null) await Bun.sleep(10);
    if (d.process.exitCode === null) d.process.kill("SIGINT");
    const dResult = await d.finished;
    const dSummary = JSON.parse(dResult.stdout);
    reached = Math.max(reached, journaled());
    const dEnd =
      dSummary.stopped === "interrupted"
        ? "the CLI went on and was stopped with SIGINT"
        : "the CLI went on to the end";
    log(
      `(d) row ${fixedD} fixed, journal deleted; server kill -9 at ${dAt}+ journaled rows ` +
        `(${atKill} stored), down ${down} ms, ${dEnd}: ` +
        `${figures(dSummary)}; stored ${await expectNoDuplicates()}`,
    );
    expect(journaled()).toBeGreaterThan(resumedFrom);
    expect(dSummary.already_imported).toBeGreaterThanOrEqual(before);
    expect(dSummary.rows).toBe(
      dSummary.created + dSummary.already_imported + dSummary.rejected + dSummary.not_imported,
    );
    if (dSummary.stopped === "interrupted") expect(dResult.code).toBe(130);
    else {
      // Not stopped: then it finished the file, every row answered (the bad ones rejected: exit 3).
      expect(dResult.code).toBe(3);
      expect(dSummary).toMatchObject({ rows: ROWS, not_imported: 0, stopped: null });
    }

    // (e) Through a proxy that cuts three connections at random once the server has answered: the
    // server wrote the batch, the CLI never heard of it and sends it again. The proxy's address has
    // a journal of its own (empty): every row goes through it.
    const fixedE = fixOne();
    const drops = new Set<number>();
    while (drops.size < 3) drops.add(between(2, 36));
    const proxy = await dropProxy(api.port, drops);
    const e = start(proxy.url);
    const eResult = await e.finished;
    proxy.close();
    const eSummary = JSON.parse(eResult.stdout);
    log(
      `(e) row ${fixedE} fixed; a proxy cut the connection after answers ` +
        `${[...drops].sort((x, y) => x - y).join(", ")} of ${proxy.answers()}: ` +
        `${figures(eSummary)}; stored ${await expectNoDuplicates()}`,
    );
    expect(eResult.code).toBe(3);
    expect(proxy.dropped).toEqual([...drops].sort((x, y) => x - y));
    expect(eSummary).toMatchObject({
      rows: ROWS,
      rejected: bad.size,
      not_imported: 0,
      stopped: null,
    });
    expect(eSummary.created + eSummary.already_imported).toBe(good());
    reached = ROWS;

    // The last run, to completion, straight to the server: only the row fixed since is new.
    const fixedLast = fixOne();
    const rejects = path.join(dir, "rejects.csv");
    const last = start(api.baseUrl, ["--rejects", rejects]);
    const lastResult = await last.finished;
    const lastSummary = JSON.parse(lastResult.stdout);
    const final = await stored();
    log(
      `final run, row ${fixedLast} fixed: ${figures(lastSummary)}; stored ${final.rows} ` +
        `(${final.distinct} distinct emails) for ${good()} good rows`,
    );
    expect(lastResult.code).toBe(3);
    expect(lastSummary).toMatchObject({
      rows: ROWS,
      created: 1,
      already_imported: good() - 1,
      rejected: bad.size,
      not_imported: 0,
    });

    expect(final).toEqual({ rows: good(), distinct: good() });
    const [emails] = await testDb().pool.query<RowDataPacket[]>(
      "SELECT email FROM workers WHERE company_id = ? AND deleted_at IS NULL",
      [companyId],
    );
    const expected = Array.from({ length: ROWS }, (_, k) => k + 1)
      .filter((row) => !bad.has(row))
      .map((row) => cells(row)[1]!);
    expect(emails.map((row) => String(row.email)).sort()).toEqual(expected.sort());

    const rejected = parseCsv(readFileSync(rejects, "utf8"));
    expect(rejected[0]).toEqual(["name", "email", "hourly_rate", "error"]);
    expect(rejected.slice(1).map((row) => row.slice(0, 3))).toEqual(
      [...bad].sort((x, y) => x - y).map(cells),
    );
    expect(
      rejected
        .slice(1)
        .every((row) => row[3]!.startsWith("validation_failed") && row[3]!.includes("email")),
    ).toBe(true);
    for (const row of [fixedB, fixedC, fixedD, fixedE, fixedLast])
      expect(rejected.some((line) => line[0] === `Worker ${row}`)).toBe(false);
  },
);
