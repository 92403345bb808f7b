// The live checks on Node (a `bun build --target=node` bundle) and on Deno (the TypeScript as is).
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newCompany } from "@erp/testing/company";
import { useServer } from "@erp/testing/suite";
import { checks } from "./checks.ts";
import { DENO } from "./deno.ts";

const runner = join(import.meta.dir, "run-checks.ts");
const suite = useServer();

/** Runs a command with the server's address and a fresh company's token; returns exit code and output. */
async function runChecks(command: string[]): Promise<{ code: number; output: string }> {
  const { token } = await newCompany();
  const child = Bun.spawn(command, {
    env: { ...process.env, ERP_BASE_URL: suite.server.baseUrl, ERP_TOKEN: token, NO_COLOR: "1" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  return { code: await child.exited, output: stdout + stderr };
}

function expectAllPassed(result: { code: number; output: string }): void {
  for (const check of checks) expect(result.output).toContain(`ok ${check.name}\n`);
  expect(result.output).toContain(`${checks.length} passed, 0 failed`);
  expect(result.code).toBe(0);
}

describe("SDK on a live server (Node and Deno)", () => {
  let bundle: string;

  beforeAll(async () => {
    bundle = join(mkdtempSync(join(tmpdir(), "sdk-node-")), "run-checks.mjs");
    const build = await Bun.build({ entrypoints: [runner], target: "node", format: "esm" });
    if (!build.success) throw new AggregateError(build.logs, "bun build --target=node failed");
    await Bun.write(bundle, build.outputs[0]!);
  });

  test("Node runs every live check from a bun build --target=node bundle", async () => {
    expectAllPassed(await runChecks(["node", bundle]));
  });

  test.skipIf(!DENO)("Deno runs every live check from the TypeScript sources", async () => {
    expectAllPassed(
      await runChecks([
        DENO!,
        "run",
        "--no-prompt",
        "--allow-net=127.0.0.1",
        "--allow-env",
        runner,
      ]),
    );
  });
});
