// `bun run bench --quick` keeps working: it runs every scenario against both servers, counts
// statements, and writes results.json. The figures are the benchmark's business, not this test's:
// it checks only that they exist and that nothing failed.
import { expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "@erp/testing/server";

setDefaultTimeout(180_000);

test("bun run bench --quick measures every scenario on both servers without an error", async () => {
  const child = Bun.spawn([process.execPath, "bench/run.ts", "--quick"], {
    cwd: ROOT,
    env: { ...process.env, BENCH_DATABASE_URL: process.env.TEST_DATABASE_SERVER_URL ?? "" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  try {
    checkResults(code, stdout);
  } catch (error) {
    // CI shows only the end of a run: what the benchmark printed is the whole diagnosis.
    console.error(`bench exit ${code}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`);
    throw error;
  }
});

function checkResults(code: number, stdout: string): void {
  expect(code).toBe(0);
  const results = JSON.parse(readFileSync(path.join(ROOT, "bench/results.json"), "utf8"));
  const names = results.scenarios.map((s: { scenario: string }) => s.scenario);
  expect(names).toEqual([
    "GET one",
    "list of 50 with total",
    "create",
    "create with Idempotency-Key",
    "replay",
    "PATCH with If-Match",
  ]);
  for (const scenario of results.scenarios) {
    expect(scenario.api.rps).toBeGreaterThan(0);
    expect(scenario.raw.rps).toBeGreaterThan(0);
    expect(scenario.api.errors + scenario.raw.errors).toBe(0);
    expect(scenario.api.statements).toBeGreaterThanOrEqual(1);
    expect(stdout).toContain(`| ${scenario.scenario}`);
  }
  expect(results.server_rss_mb).toBeGreaterThan(0);
  expect(results.bulk_import.cli.exitCode).toBe(0);
  expect(results.bulk_import.cli.rowsPerSecond).toBeGreaterThan(0);
  expect(results.bulk_import.cli.imported).toBe(results.bulk_import.rows);
  expect(results.bulk_import.raw.rowsPerSecond).toBeGreaterThan(0);
  // Every scenario the bench prints has its p99 (a batch's, a page's, a round's).
  expect(results.bulk_import.raw.batchP99Ms).toBeGreaterThan(0);
  for (const kind of ["create", "upsert", "update"])
    expect(results.bulk_import.batchLatency[kind].p99Ms).toBeGreaterThan(0);
  expect(results.bulk_import.statements.create).toBeGreaterThan(0);
  expect(results.bulk_import.statements.update).toBeGreaterThan(0);
  expect(results.bulk_import.update.exitCode).toBe(0);
  expect(results.bulk_import.update.changed).toBe(results.bulk_import.update.edited);
  for (const company of [results.scale.small, results.scale.large]) {
    expect(company.exportExitCode).toBe(0);
    expect(company.exportedRows).toBe(company.workers);
    expect(company.firstPageMs).toBeGreaterThan(0);
    expect(company.firstPageP99Ms).toBeGreaterThanOrEqual(company.firstPageMs);
    expect(company.deepPageP99Ms).toBeGreaterThanOrEqual(company.deepPageMs);
  }
  expect(stdout).toContain("Scale: large/small first page");
  for (const report of results.reports.reports) {
    expect(report.groups).toBeGreaterThan(0);
    expect(report.p99Ms).toBeGreaterThanOrEqual(report.medianMs);
  }
  expect(stdout).toContain("Reports, ");
  const custom = results.custom_fields;
  for (const pair of ["filterFirstPage", "sortedDeepPage", "sortedFirstPage"])
    expect(custom[pair].custom.p99Ms).toBeGreaterThanOrEqual(custom[pair].custom.medianMs);
  expect(custom.create.withRps).toBeGreaterThan(0);
  expect(custom.create.errors).toBe(0);
  expect(custom.import.withRowsPerSecond).toBeGreaterThan(0);
  expect(stdout).toContain("Custom fields, ");
  expect(results.attachments.stores.map((s: { store: string }) => s.store)).toEqual([
    "directory",
    "s3",
  ]);
  for (const store of results.attachments.stores)
    for (const transfer of [store.upload, store.download]) {
      expect(transfer.ratio).toBeGreaterThan(0);
      expect(transfer.peaksOverIdleMb).toHaveLength(results.attachments.rounds);
    }
  expect(stdout).toContain("Attachments, ");
  expect(results.long_polls.errors).toBe(0);
  expect(results.long_polls.holding.rss_mb).toBeGreaterThan(0);
  expect(results.filtered_long_polls.errors).toBe(0);
  expect(results.filtered_long_polls.with.writes).toBeGreaterThan(0);
  expect(results.filtered_long_polls.with.write_errors).toBe(0);
  expect(results.webhook_dispatch.deliveriesPerSecond).toBeGreaterThan(0);
  for (const figures of results.observability) expect(figures.on_p99_ms).toBeGreaterThan(0);
  // Platformatic DB is measured only when asked for (--peers): the smoke test needs no network.
  expect(results.peers).toBeUndefined();
}
