// The SDK's import() (docs/bulk-work.md) on Node and on Deno, each a child process against this
// test's server: 20,000 rows with 2% bad, aborted by its signal midway (the batches in flight
// abandoned, some of them written), then the same rows again. Every good row is stored exactly
// once, every bad row has one `rejected` result; and the CLI, given the same rows as an NDJSON
// file, agrees on every row's key: it creates nothing.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { RowDataPacket } from "mysql2";
import { erpFor, tempDir } from "@erp/testing/cli";
import { newCompany, testDb } from "@erp/testing/company";
import { useServer } from "@erp/testing/suite";
import { DENO } from "../sdk/test/live/deno.ts";
import { isBad, ROWS, row } from "./sdk-import/rows.ts";

setDefaultTimeout(300_000);

const script = path.join(import.meta.dir, "sdk-import/run-import.ts");
const suite = useServer();
const dir = tempDir();
const file = path.join(dir, "workers.ndjson");
const good = Array.from({ length: ROWS }, (_, k) => k + 1).filter((n) => !isBad(n));
const bad = Array.from({ length: ROWS }, (_, k) => k + 1).filter(isBad);
let bundle: string;

beforeAll(async () => {
  writeFileSync(
    file,
    `${Array.from({ length: ROWS }, (_, k) => JSON.stringify(row(k + 1))).join("\n")}\n`,
  );
  bundle = path.join(mkdtempSync(path.join(tmpdir(), "sdk-import-node-")), "run-import.mjs");
  const build = await Bun.build({ entrypoints: [script], target: "node", format: "esm" });
  if (!build.success) throw new AggregateError(build.logs, "bun build --target=node failed");
  await Bun.write(bundle, build.outputs[0]!);
});

async function stored(companyId: number): Promise<{ rows: number; distinct: number }> {
  const [counted] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT COUNT(*) AS n, COUNT(DISTINCT email) AS d FROM workers WHERE company_id = ? AND deleted_at IS NULL",
    [companyId],
  );
  return { rows: Number(counted[0]!.n), distinct: Number(counted[0]!.d) };
}

async function events(companyId: number): Promise<number> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT COUNT(*) AS n FROM events WHERE company_id = ? AND type = 'worker.created'",
    [companyId],
  );
  return Number(rows[0]!.n);
}

/** Runs the script with `command` for a fresh company, checks what it says and what was stored. */
async function importAbortRerun(runtime: string, command: string[]): Promise<void> {
  const { token, companyId } = await newCompany();
  const child = Bun.spawn(command, {
    env: {
      ...process.env,
      ERP_BASE_URL: suite.server.baseUrl,
      ERP_TOKEN: token,
      ABORT_AFTER: String(ROWS / 2),
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (code !== 0) console.error(stderr);
  expect(code).toBe(0);
  const { runtime: ran, first, second, byStatus } = JSON.parse(stdout.trim().split("\n").at(-1)!);
  expect(ran).toBe(runtime);
  console.log(
    `[sdk import on ${runtime}] aborted run: ${first.rows} rows read, ${first.created} created, ` +
      `${first.rejected} rejected, ${first.notImported} not imported; re-run: ` +
      `${second.created} created, ${second.replayed} replayed, ${second.rejected} rejected ` +
      `(${second.seconds} s)`,
  );

  // The abort came midway: rows were left, and the run says why it ended.
  expect(first.stopped).toBe("aborted");
  expect(first.rows).toBeLessThan(ROWS);
  expect(first.rows).toBe(first.created + first.rejected + first.notImported + first.replayed);
  expect(first.notImported).toBeGreaterThan(0);

  // The re-run: one result per row, each bad row rejected once, every good row created or replayed.
  expect(second).toMatchObject({
    rows: ROWS,
    rejected: bad.length,
    notImported: 0,
    stopped: null,
  });
  expect(byStatus.rejected).toEqual(bad);
  expect([...(byStatus.created ?? []), ...(byStatus.replayed ?? [])].sort((a, b) => a - b)).toEqual(
    good,
  );
  // Replayed: the rows the first run created, and those its abandoned batches wrote unheard.
  expect(second.replayed).toBeGreaterThanOrEqual(first.created);
  expect(await stored(companyId)).toEqual({ rows: good.length, distinct: good.length });
  expect(await events(companyId)).toBe(good.length);

  // The CLI derives the same keys from the same rows (its own journal is empty): nothing is new.
  const cli = await erpFor(suite.server.baseUrl, token)(["import", "workers", file, "-o", "json"], {
    env: { XDG_STATE_HOME: path.join(dir, `state-${runtime}`) },
  });
  expect(cli.code).toBe(3);
  expect(JSON.parse(cli.stdout)).toMatchObject({
    rows: ROWS,
    created: 0,
    already_imported: good.length,
    rejected: bad.length,
    not_imported: 0,
  });
  expect(await stored(companyId)).toEqual({ rows: good.length, distinct: good.length });
}

describe("the SDK's import(), aborted and re-run, on Node and on Deno", () => {
  test("Node: every good row once, every bad row one rejected result; the CLI then creates nothing", () =>
    importAbortRerun("node", ["node", bundle]));

  test.skipIf(!DENO)(
    "Deno: every good row once, every bad row one rejected result; the CLI then creates nothing",
    () =>
      importAbortRerun("deno", [
        DENO!,
        "run",
        "--no-prompt",
        "--allow-net=127.0.0.1",
        "--allow-env",
        script,
      ]),
  );
});
