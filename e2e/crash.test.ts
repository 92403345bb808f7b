// Crash safety of idempotent writes (docs/writes-and-retries.md): a server killed with SIGKILL in the middle
// of keyed writes, restarted, and the same requests retried: every write exists exactly once.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { RowDataPacket } from "mysql2";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { Api, type ApiResponse } from "@erp/testing/api";
import { erpFor, tempDir } from "@erp/testing/cli";
import { closeTestDb, newCompany, testDb } from "@erp/testing/company";
import { startServer, type RunningServer, type ServerOptions } from "@erp/testing/server";

// Server starts, crash recovery and waits for a fresh rate window outlast bun's 5 s default
// (bunfig.toml has no test timeout setting).
setDefaultTimeout(30_000);

const servers: RunningServer[] = [];

async function server(options: ServerOptions = {}): Promise<RunningServer> {
  const started = await startServer(options);
  servers.push(started);
  return started;
}

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop("SIGKILL")));
  await closeTestDb();
});

const keyed = (key: string) => ({ headers: { "idempotency-key": key } });

/** Sends the request until it has an outcome, as a client would: through 409 in_progress and refusals. */
async function untilSettled(send: () => Promise<ApiResponse>): Promise<ApiResponse> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const response = await send().catch(() => undefined);
    if (response && response.body?.code !== "idempotency_in_progress") return response;
    if (Date.now() > deadline) throw new Error("no outcome within 20 s");
    await Bun.sleep(response ? Number(response.headers.get("retry-after") ?? 1) * 1000 : 200);
  }
}

/** Runs the tasks `width` at a time. */
async function pool<T>(tasks: (() => Promise<T>)[], width: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) {
        const index = next++;
        results[index] = await tasks[index]!();
      }
    }),
  );
  return results;
}

async function namesOf(table: string, companyId: number): Promise<Map<string, number[]>> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    `SELECT id, name FROM ${table} WHERE company_id = ? ORDER BY id`,
    [companyId],
  );
  const byName = new Map<string, number[]>();
  for (const row of rows) byName.set(row.name, [...(byName.get(row.name) ?? []), Number(row.id)]);
  return byName;
}

/** Statements the database is running (or waiting in) that read and lock a company's quota counter. */
async function quotaUpdatesRunning(): Promise<number> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE COMMAND IN ('Query', " +
      "'Execute') AND INFO LIKE 'SELECT value FROM company_counters%FOR UPDATE%'",
  );
  return Number(rows[0]!.n);
}

describe("crash safety", () => {
  test(
    "SIGKILL at an arbitrary moment of a keyed burst: after a restart the retries create " +
      "each record once",
    async () => {
      const first = await server();
      const { token, companyId } = await newCompany();
      const keys = Array.from({ length: 200 }, (_, i) => `burst-${i}`);
      let answered = 0;
      const before = new Map<string, ApiResponse | undefined>();
      await pool(
        keys.map((key) => async () => {
          const response = await new Api(first.baseUrl, token)
            .post("/v1/clients", { name: key }, keyed(key))
            .catch(() => undefined);
          before.set(key, response);
          if (response && ++answered === 60) first.process.kill("SIGKILL");
        }),
        24,
      );
      await first.process.exited;
      const lost = keys.filter((key) => !before.get(key));
      expect(answered).toBeGreaterThanOrEqual(60);
      expect(lost.length).toBeGreaterThan(0);

      const second = await server();
      const api = new Api(second.baseUrl, token);
      const after = await pool(
        keys.map(
          (key) => () => untilSettled(() => api.post("/v1/clients", { name: key }, keyed(key))),
        ),
        24,
      );

      const stored = await namesOf("clients", companyId);
      expect(stored.size).toBe(keys.length);
      expect([...stored.values()].every((ids) => ids.length === 1)).toBe(true);
      keys.forEach((key, i) => {
        const final = after[i]!;
        expect(final.status).toBe(201);
        expect(final.body.data.id).toBe(stored.get(key)![0]);
        const earlier = before.get(key);
        if (earlier?.status === 201) {
          expect(final.headers.get("idempotent-replayed")).toBe("true");
          expect(final.body).toEqual(earlier.body);
        }
      });
    },
  );

  test(
    "writes parked inside their transactions when the process dies leave nothing, and their " +
      "retries run once",
    async () => {
      const first = await server();
      const { token, companyId } = await newCompany({ quotas: { projects: 1000 } });
      const done = Array.from({ length: 5 }, (_, i) => `done-${i}`);
      // Fewer than the server's 10 pooled connections, so background work still gets one.
      const parked = Array.from({ length: 6 }, (_, i) => `parked-${i}`);
      const before = new Api(first.baseUrl, token);
      for (const key of done)
        expect((await before.post("/v1/projects", { name: key }, keyed(key))).status).toBe(201);

      // Holding the company's project quota row parks every create inside its transaction.
      const blocker = await testDb().pool.getConnection();
      try {
        await blocker.beginTransaction();
        await blocker.query(
          "SELECT value FROM company_counters WHERE company_id = ? AND name = 'projects' FOR UPDATE",
          [companyId],
        );
        const inFlight = parked.map((key) =>
          before.post("/v1/projects", { name: key }, keyed(key)).catch(() => undefined),
        );
        // Killed while every parked create waits on the quota row, well inside the 5 s lock wait.
        const deadline = Date.now() + 3_000;
        while ((await quotaUpdatesRunning()) < parked.length) {
          if (Date.now() > deadline)
            throw new Error(
              `only ${await quotaUpdatesRunning()} of ${parked.length} parked writes reached the quota row`,
            );
          await Bun.sleep(20);
        }
        first.process.kill("SIGKILL");
        await first.process.exited;
        expect((await Promise.all(inFlight)).every((response) => response === undefined)).toBe(
          true,
        );
        await blocker.commit();
      } finally {
        blocker.release();
      }
      expect([...(await namesOf("projects", companyId)).keys()]).toEqual(done);

      const second = await server();
      const api = new Api(second.baseUrl, token);
      const retried = await Promise.all(
        [...done, ...parked].map((key) =>
          untilSettled(() => api.post("/v1/projects", { name: key }, keyed(key))),
        ),
      );
      expect(retried.map((r) => r.status)).toEqual(Array(done.length + parked.length).fill(201));
      expect(
        retried.slice(0, done.length).every((r) => r.headers.get("idempotent-replayed") === "true"),
      ).toBe(true);
      const stored = await namesOf("projects", companyId);
      expect([...stored.keys()].sort()).toEqual([...done, ...parked].sort());
      expect([...stored.values()].every((ids) => ids.length === 1)).toBe(true);
    },
  );

  test(
    "SIGKILL of the server mid-import and a restart on the same port: the CLI resumes by " +
      "itself, a re-run adds nothing, every row once",
    async () => {
      const first = await server();
      const { token, companyId } = await newCompany();
      const rows = 12_000;
      const file = path.join(tempDir(), "crash-import.csv");
      writeFileSync(
        file,
        `name,email\n${Array.from({ length: rows }, (_, i) => `Crash ${i + 1},c${i + 1}@example.com`).join("\n")}\n`,
      );
      const cli = erpFor(first.baseUrl, token);
      const run = cli(["import", "workers", file, "-o", "json", "--batch-size", "100"]);

      const stored = async (): Promise<number> => {
        const [counted] = await testDb().pool.query<RowDataPacket[]>(
          "SELECT COUNT(*) AS n FROM workers WHERE company_id = ?",
          [companyId],
        );
        return Number(counted[0]!.n);
      };
      const deadline = Date.now() + 20_000;
      while ((await stored()) < rows / 4) {
        if (Date.now() > deadline)
          throw new Error("the import did not get a quarter in within 20 s");
        await Bun.sleep(10);
      }
      first.process.kill("SIGKILL");
      await first.process.exited;
      const atKill = await stored();
      await Bun.sleep(1_000);
      await server({ port: first.port });

      const result = await run;
      expect(result.code).toBe(0);
      const summary = JSON.parse(result.stdout);
      const again = await cli(["import", "workers", file, "-o", "json", "--batch-size", "100"]);
      expect(again.code).toBe(0);
      const rerun = JSON.parse(again.stdout);
      const names = await namesOf("workers", companyId);
      const duplicated = [...names.values()].filter((ids) => ids.length > 1).length;
      console.log(
        `[crash: import] ${rows} rows, server SIGKILLed at ${atKill} stored and restarted after 1 ` +
          `s; the CLI went on by itself: ` +
          `created ${summary.created}, already imported ${summary.already_imported}, ` +
          `${summary.requests} requests; re-run: created ${rerun.created}, ` +
          `skipped ${rerun.already_imported}; stored ${names.size}, duplicated ${duplicated}, ` +
          `lost ${rows - names.size}`,
      );
      expect(atKill).toBeLessThan(rows);
      expect(summary.created + summary.already_imported).toBe(rows);
      expect(rerun.created).toBe(0);
      expect(rerun.already_imported).toBe(rows);
      expect(names.size).toBe(rows);
      expect(duplicated).toBe(0);
    },
  );
});
