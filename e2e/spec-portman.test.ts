// Portman's contract tests, generated offline from the served document and run by newman: every
// operation once, ids flowing from each create into its reads, updates and deletes; every request
// answers 2xx and every answer passes its content-type, JSON and schema assertions.
import { expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { newCompany } from "@erp/testing/company";
import { portmanConfig } from "@erp/testing/portman";
import { runTool, scratchDir } from "@erp/testing/spec-tools";
import { documentedHostsEnv } from "@erp/testing/documented-hosts";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(120_000);

// The documented webhook URL is https://example.com/…: this sandbox resolves no public name, so
// the server may not look it up (deliveries to it fail and are retried, unseen by the test).
const suite = useServer({ env: documentedHostsEnv() });

interface Execution {
  item: { name: string };
  request: { method: string; url: { path: string[] } };
  response?: { code: number };
  assertions?: { assertion: string; error?: { message: string } }[];
}

test("Portman's generated contract tests pass against a live server, ids flowing from creates", async () => {
  const { token } = await newCompany();
  const scratch = scratchDir("erp-portman-");
  try {
    const served = await suite.api.get("/v1/openapi.json", { token: null });
    const document = served.body as Record<string, any>;
    const documentFile = scratch.write("openapi.json", served.text);
    const config = scratch.write(
      "portman-config.json",
      JSON.stringify(portmanConfig(document), null, 2),
    );
    const collection = path.join(scratch.dir, "collection.json");
    const convert = await runTool(
      "portman",
      [
        "--local",
        documentFile,
        "--portmanConfigFile",
        config,
        "--output",
        collection,
        "--baseUrl",
        suite.server.baseUrl,
        "--logAssignVariables",
        "false",
      ],
      scratch.dir,
    );
    if (!existsSync(collection))
      throw new Error(
        `portman wrote no collection (exit ${convert.exitCode}):\n${convert.stdout}\n${convert.stderr}`,
      );
    const reportFile = path.join(scratch.dir, "report.json");
    const run = await runTool(
      "newman",
      [
        "run",
        collection,
        "--env-var",
        `bearerToken=${token}`,
        "--reporters",
        "json",
        "--reporter-json-export",
        reportFile,
      ],
      scratch.dir,
    );
    if (!existsSync(reportFile))
      throw new Error(
        `newman wrote no report (exit ${run.exitCode}):\n${run.stdout}\n${run.stderr}`,
      );
    const report = JSON.parse(readFileSync(reportFile, "utf8")) as {
      run: {
        stats: {
          requests: { total: number; failed: number };
          assertions: { total: number; failed: number };
        };
        executions: Execution[];
      };
    };
    const { stats, executions } = report.run;
    const operations = Object.values(
      document.paths as Record<string, Record<string, unknown>>,
    ).reduce((count, item) => count + Object.keys(item).length, 0);
    const answered = executions.map(
      (execution) =>
        `${execution.response?.code} ${execution.request.method} /${execution.request.url.path.join("/")}`,
    );
    const failed = executions.flatMap((execution) =>
      (execution.assertions ?? [])
        .filter((a) => a.error)
        .map((a) => `${execution.item.name}: ${a.assertion}: ${a.error!.message}`),
    );
    const schemaChecks = executions.flatMap((execution) =>
      (execution.assertions ?? []).filter((a) => a.assertion.endsWith("Schema is valid")),
    );
    console.log(
      `Portman + newman: ${stats.requests.total} requests (one per operation), ` +
        `${stats.assertions.total} assertions (${schemaChecks.length} schema), ` +
        `${stats.assertions.failed} failed`,
    );
    expect(failed).toEqual([]);
    expect(answered.filter((line) => !/^2\d\d /.test(line))).toEqual([]);
    expect(stats.requests.total).toBe(operations);
    // Every operation answering JSON (all but the HTML reference and an attachment's bytes) had its
    // answer checked against its schema.
    const answeringJson = Object.values(document.paths as Record<string, Record<string, any>>)
      .flatMap((item) => Object.values(item))
      .filter((operation) =>
        Object.entries(operation.responses as Record<string, any>).some(
          ([status, response]) =>
            /^2/.test(status) &&
            Object.keys(response.content ?? {}).some((type) => /json$/.test(type)),
        ),
      ).length;
    expect(schemaChecks.length).toBe(answeringJson);
    // Every create and upsert created (201), and the 2xx of every read, update and delete means
    // each found the record whose id flowed from its create (the documents' example id is 42).
    const creating = Object.values(document.paths as Record<string, Record<string, any>>)
      .flatMap((item) => Object.values(item))
      .filter((operation) => operation.responses["201"]);
    expect(answered.filter((line) => line.startsWith("201 "))).toHaveLength(creating.length);
    expect(run.exitCode).toBe(0);
  } finally {
    scratch.remove();
  }
});
