// `erp import --update` interrupted the five ways of cli-import-interrupted.test.ts, one after
// another on one edited export of 10,000 workers: SIGINT once, SIGINT twice, kill -9 of the CLI,
// kill -9 of the server (restarted on its port while the CLI waits), and a proxy that drops the
// connection once the server has answered (its address has a journal of its own: the journal
// lost). Every edited record changes exactly once: one worker.updated event each, none for the
// others.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { RowDataPacket } from "mysql2";
import { Api } from "@erp/testing/api";
import { erpFor, type RunningCli, startErpFor, tempDir } from "@erp/testing/cli";
import { closeTestDb, newCompany, testDb } from "@erp/testing/company";
import { parseCsv } from "@erp/testing/csv";
import { dropProxy } from "@erp/testing/drop-proxy";
import { between, killableServers, untilBefore } from "@erp/testing/interruptions";

setDefaultTimeout(240_000);

const WORKERS = 10_000;
const servers = killableServers();
const server = servers.start;
afterAll(async () => {
  await servers.killAll();
  await closeTestDb();
});

test(
  "an edited export of 10,000 workers imported with --update, interrupted five ways: every " +
    "edited record changes exactly once",
  async () => {
    let api = await server();
    const { token, companyId } = await newCompany();
    const client = new Api(api.baseUrl).as(token);
    for (let first = 0; first < WORKERS; first += 500) {
      const response = await client.post("/v1/workers/batch", {
        items: Array.from({ length: 500 }, (_, i) => ({
          name: `Crew ${first + i}`,
          hourly_rate: "40.00",
        })),
      });
      expect(response.body.data.created).toBe(500);
    }
    const dir = tempDir();
    const state = path.join(dir, "state");
    const journalDir = path.join(state, "erp", "imports");
    const file = path.join(dir, "workers.csv");
    const exported = await erpFor(api.baseUrl, token)(["export", "workers", "--format", "csv"]);
    expect(exported.code).toBe(0);
    const [header, ...data] = parseCsv(exported.stdout) as [string[], ...string[][]];
    const edited = new Set<number>();
    data.forEach((cells, i) => {
      if (i % 5 !== 2) return;
      cells[header.indexOf("hourly_rate")] = `${50 + (i % 7)}.25`;
      edited.add(Number(cells[header.indexOf("id")]));
    });
    writeFileSync(file, `${[header, ...data].map((cells) => cells.join(",")).join("\n")}\n`);

    const journaled = (): number => {
      if (!existsSync(journalDir)) return 0;
      let lines = 0;
      for (const name of readdirSync(journalDir)) {
        const text = readFileSync(path.join(journalDir, name));
        for (let at = text.indexOf(10); at >= 0; at = text.indexOf(10, at + 1)) lines += 1;
      }
      return lines;
    };
    /** Updates so far, and the records updated more than once (there must be none). */
    const updates = async (): Promise<{ events: number; twice: number }> => {
      const [rows] = await testDb().pool.query<RowDataPacket[]>(
        "SELECT record_id, COUNT(*) AS n FROM events" +
          " WHERE company_id = ? AND type = 'worker.updated' GROUP BY record_id",
        [companyId],
      );
      return {
        events: rows.reduce((sum, row) => sum + Number(row.n), 0),
        twice: rows.filter((row) => Number(row.n) > 1).length,
      };
    };
    const expectOnce = async (): Promise<number> => {
      const now = await updates();
      expect(now.twice).toBe(0);
      expect(now.events).toBeLessThanOrEqual(edited.size);
      return now.events;
    };
    const start = (baseUrl: string): RunningCli =>
      startErpFor(baseUrl, token)(
        ["import", "workers", file, "--update", "--batch-size", "100", "-o", "json"],
        { env: { XDG_STATE_HOME: state } },
      );
    const log = (line: string): void => console.log(`[update interrupted] ${line}`);

    // (a) SIGINT once: the batch in flight finishes, the rest is not imported.
    const a = start(api.baseUrl);
    const aAt = between(1_000, 2_000);
    await untilBefore(`${aAt} rows were journaled`, a, () => journaled() >= aAt);
    a.process.kill("SIGINT");
    const aResult = await a.finished;
    expect(aResult.code).toBe(130);
    const aSummary = JSON.parse(aResult.stdout);
    expect(aSummary.stopped).toBe("interrupted");
    expect(aSummary.not_imported).toBeGreaterThan(0);
    expect(aSummary.updated).toBe(await expectOnce());
    log(`(a) SIGINT once: ${aSummary.updated} updated, ${aSummary.unchanged} unchanged`);

    // (b) SIGINT twice: quits at once, mid-batch.
    const b = start(api.baseUrl);
    const bAt = journaled() + between(1_000, 2_000);
    await untilBefore(`${bAt} rows were journaled`, b, () => journaled() >= bAt);
    b.process.kill("SIGINT");
    await Bun.sleep(between(0, 30));
    if (b.process.exitCode === null) b.process.kill("SIGINT");
    expect((await b.finished).code).toBe(130);
    log(`(b) SIGINT twice: ${await expectOnce()} records updated so far`);

    // (c) kill -9 of the CLI.
    const c = start(api.baseUrl);
    const cAt = journaled() + between(1_000, 2_000);
    await untilBefore(`${cAt} rows were journaled`, c, () => journaled() >= cAt);
    await Bun.sleep(between(0, 100));
    c.process.kill("SIGKILL");
    await c.finished;
    log(`(c) kill -9 of the CLI: ${await expectOnce()} records updated so far`);

    // (d) kill -9 of the server mid-import (among rows not yet sent) and a restart on its port:
    // the CLI waits and carries on; it is stopped with SIGINT once it has gone on a while, unless
    // it reaches the end first.
    const d = start(api.baseUrl);
    const dAt = journaled() + between(500, 1_500);
    await untilBefore(`${dAt} rows were journaled`, d, () => journaled() >= dAt);
    api.process.kill("SIGKILL");
    await api.process.exited;
    await Bun.sleep(between(200, 1_000));
    api = await server(api.port);
    const resumedFrom = journaled();
    while (journaled() < resumedFrom + 1_000 && d.process.exitCode === null) await Bun.sleep(5);
    if (d.process.exitCode === null) d.process.kill("SIGINT");
    const dResult = await d.finished;
    expect([0, 130]).toContain(dResult.code);
    expect(journaled()).toBeGreaterThan(resumedFrom);
    log(`(d) server kill -9, exit ${dResult.code}: ${await expectOnce()} records updated so far`);

    // (e) To the end through a proxy that cuts three connections once the server has answered
    // (its address has a journal of its own, empty): the CLI never hears of those answers.
    const drops = new Set<number>();
    while (drops.size < 3) drops.add(between(2, 60));
    const proxy = await dropProxy(api.port, drops);
    const eResult = await start(proxy.url).finished;
    proxy.close();
    expect(eResult.code).toBe(0);
    expect(proxy.dropped).toEqual([...drops].sort((x, y) => x - y));
    const eSummary = JSON.parse(eResult.stdout);
    expect(eSummary).toMatchObject({ rows: WORKERS, created: 0, rejected: 0, not_imported: 0 });
    log(
      `(e) proxy dropped answers ${proxy.dropped.join(", ")} of ${proxy.answers()}: ` +
        `${eSummary.updated} updated, ${eSummary.unchanged} unchanged, ` +
        `${eSummary.already_imported} already imported`,
    );

    expect(await updates()).toEqual({ events: edited.size, twice: 0 });
    const [rows] = await testDb().pool.query<RowDataPacket[]>(
      "SELECT id FROM workers WHERE company_id = ? AND hourly_rate <> 40",
      [companyId],
    );
    expect(rows.map((row) => Number(row.id)).sort((x, y) => x - y)).toEqual(
      [...edited].sort((x, y) => x - y),
    );
  },
);
