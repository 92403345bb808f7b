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

test("newman runs the served collection against a live server: every request and assertion passes", async () => {
  const { token } = await newCompany();
  const scratch = scratchDir("erp-newman-");
  try {
    const collection = scratch.write("collection.json", (await suite.api.get("/v1/collection.json", { token: null })).text);
    const reportFile = `${scratch.dir}/report.json`;
    const run = await runTool("newman", [
      "run", collection,
      "--env-var", `baseUrl=${suite.server.baseUrl}`,
      "--env-var", `token=${token}`,
      "--reporters", "cli,json", "--reporter-json-export", reportFile,
      "--disable-unicode", "--color", "off",
    ]);
    if (!existsSync(reportFile)) throw new Error(`newman wrote no report (exit ${run.exitCode}):\n${run.stdout}\n${run.stderr}`);
    const report = JSON.parse(readFileSync(reportFile, "utf8")) as { run: { stats: NewmanStats; failures: { error: { message: string }; source?: { name?: string } }[] } };
    const { stats, failures } = report.run;
    console.log(`newman: ${stats.requests.total} requests (${stats.requests.failed} failed), ${stats.assertions.total} assertions (${stats.assertions.failed} failed)`);
    expect(failures.map((failure) => `${failure.source?.name}: ${failure.error.message}`), run.stdout.slice(-4000)).toEqual([]);
    expect(stats.requests.failed).toBe(0);
    expect(stats.assertions.failed).toBe(0);
    expect(stats.requests.total).toBeGreaterThan(40);
    expect(run.exitCode).toBe(0);
  } finally {
    scratch.remove();
  }
}, 60_000);
