// The served collection, run as a whole by newman with only baseUrl and token set, passes.
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { newCompany } from "@erp/testing/company";
import { runTool, scratchDir } from "@erp/testing/spec-tools";
import { useServer } from "@erp/testing/suite";

const suite = useServer();

interface NewmanStats {
  requests: { total: number; failed: number };
  assertions: { total: number; failed: number };
}

async function runNewman(token: string): Promise<{
  stats: NewmanStats;
  failures: string[];
  skipped: number;
  exitCode: number;
  output: string;
}> {
  const scratch = scratchDir("erp-newman-");
  try {
    const collection = scratch.write(
      "collection.json",
      (await suite.api.get("/v1/collection.json", { token: null })).text,
    );
    const reportFile = `${scratch.dir}/report.json`;
    const run = await runTool("newman", [
      "run",
      collection,
      "--env-var",
      `baseUrl=${suite.server.baseUrl}`,
      "--env-var",
      `token=${token}`,
      "--reporters",
      "cli,json",
      "--reporter-json-export",
      reportFile,
      "--disable-unicode",
      "--color",
      "off",
    ]);
    if (!existsSync(reportFile))
      throw new Error(
        `newman wrote no report (exit ${run.exitCode}):\n${run.stdout}\n${run.stderr}`,
      );
    const report = JSON.parse(readFileSync(reportFile, "utf8")) as {
      run: {
        stats: NewmanStats;
        failures: { error: { message: string }; source?: { name?: string } }[];
        executions: { assertions?: { assertion: string }[] }[];
      };
    };
    const skipped = report.run.executions
      .flatMap((e) => e.assertions ?? [])
      .filter((a) => a.assertion.startsWith("skipped")).length;
    return {
      stats: report.run.stats,
      failures: report.run.failures.map((f) => `${f.source?.name}: ${f.error.message}`),
      skipped,
      exitCode: run.exitCode,
      output: run.stdout.slice(-4000),
    };
  } finally {
    scratch.remove();
  }
}

test("newman runs the served collection against a live server: every request and assertion passes", async () => {
  const { token } = await newCompany();
  const { stats, failures, skipped, exitCode, output } = await runNewman(token);
  console.log(
    `newman (every add-on): ${stats.requests.total} requests (${stats.requests.failed} failed), ` +
      `${stats.assertions.total} assertions (${stats.assertions.failed} failed, ${skipped} ` +
      `skipped)`,
  );
  expect(failures, output).toEqual([]);
  expect(skipped).toBe(0);
  expect(stats.requests.failed).toBe(0);
  expect(stats.assertions.failed).toBe(0);
  expect(stats.requests.total).toBeGreaterThan(40);
  expect(exitCode).toBe(0);
}, 60_000);

test("an api-only company with a full workers quota runs the collection green: the folders it " +
  "cannot use are skipped, not failed", async () => {
  const { token } = await newCompany({ plan: "free", addons: ["api"], quotas: { workers: 0 } });
  const { stats, failures, skipped, exitCode, output } = await runNewman(token);
  console.log(
    `newman (api add-on only, no worker slot): ${stats.requests.total} requests, ` +
      `${stats.assertions.total} assertions (${stats.assertions.failed} failed, ${skipped} ` +
      `skipped)`,
  );
  expect(failures, output).toEqual([]);
  expect(skipped).toBeGreaterThan(10);
  expect(exitCode).toBe(0);
}, 60_000);
