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
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) console.error(stderr);
  expect(code).toBe(0);
  const results = JSON.parse(readFileSync(path.join(ROOT, "bench/results.json"), "utf8"));
  const names = results.scenarios.map((s: { scenario: string }) => s.scenario);
  expect(names).toEqual(["GET one", "list of 50 with total", "create", "create with Idempotency-Key", "replay", "PATCH with If-Match"]);
  for (const scenario of results.scenarios) {
    expect(scenario.api.rps).toBeGreaterThan(0);
    expect(scenario.raw.rps).toBeGreaterThan(0);
    expect(scenario.api.errors + scenario.raw.errors).toBe(0);
    expect(scenario.api.statements).toBeGreaterThanOrEqual(1);
    expect(stdout).toContain(`| ${scenario.scenario}`);
  }
  expect(results.server_rss_mb).toBeGreaterThan(0);
  expect(results.cli_import.exitCode).toBe(0);
  expect(results.cli_import.rowsPerSecond).toBeGreaterThan(0);
  expect(results.cli_import.imported).toBe(results.cli_import.rows);
});
