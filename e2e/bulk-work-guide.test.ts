// docs/bulk-work.md shows examples that run: each of its sh blocks (with `erp` on the PATH and a
// company's ERP_BASE_URL and ERP_TOKEN) and ts blocks (the SDK from this repository) runs in
// order against this test's server, succeeds, prints what the page says it prints, and leaves
// the records the page says it makes.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { tempDir } from "@erp/testing/cli";
import { newCompany } from "@erp/testing/company";
import { ROOT } from "@erp/testing/server";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(120_000);

const suite = useServer();
const dir = tempDir();
const page = readFileSync(path.join(ROOT, "docs/bulk-work.md"), "utf8");
const blocks = [...page.matchAll(/```(sh|ts)\n([\s\S]*?)```/g)].map(([, kind, code]) => ({
  kind: kind as "sh" | "ts",
  code: code!,
}));
let env: Record<string, string>;
let token: string;

beforeAll(async () => {
  token = (await newCompany()).token;
  const bin = path.join(dir, "bin");
  mkdirSync(bin);
  writeFileSync(
    path.join(bin, "erp"),
    `#!/bin/sh\nexec "${process.execPath}" "${path.join(ROOT, "cli/src/main.ts")}" "$@"\n`,
  );
  chmodSync(path.join(bin, "erp"), 0o755);
  env = {
    ...(process.env as Record<string, string>),
    PATH: `${bin}:${process.env.PATH}`,
    ERP_BASE_URL: suite.server.baseUrl,
    ERP_TOKEN: token,
    ERP_CONFIG: path.join(dir, "no-login.json"),
    XDG_STATE_HOME: path.join(dir, "state"),
  };
});

/** Runs one block as the page's reader would: a shell script, or a TypeScript file importing the SDK. */
function run(block: { kind: "sh" | "ts"; code: string }, index: number) {
  let command: string[];
  if (block.kind === "sh") command = ["bash", "-e", "-o", "pipefail", "-c", block.code];
  else {
    const file = path.join(dir, `example-${index}.ts`);
    writeFileSync(file, block.code.replace('from "@erp/sdk"', `from "${ROOT}/sdk/mod.ts"`));
    command = [process.execPath, file];
  }
  const result = Bun.spawnSync(command, { cwd: dir, env });
  return {
    code: result.exitCode,
    stdout: result.stdout.toString(),
    stderr: result.stderr.toString(),
  };
}

describe("docs/bulk-work.md", () => {
  test("shows the three ways: CLI commands, an SDK program and raw batch calls", () => {
    expect(blocks.map((block) => block.kind)).toEqual(["sh", "ts", "sh", "sh"]);
  });

  test("every example runs as printed and does what the page says", async () => {
    const [cliBlock, sdk, batch, update] = blocks.map(run);
    for (const result of [cliBlock, sdk, batch, update]) {
      if (result!.code !== 0) console.error(result!.stderr);
      expect(result!.code).toBe(0);
    }
    expect(cliBlock!.stderr).toContain("2 workers rows: 2 created");
    expect(cliBlock!.stderr).toContain("0 created, 0 updated, 0 unchanged, 2 already imported");
    expect(cliBlock!.stderr).toContain("0 created, 0 updated, 2 unchanged");
    expect(sdk!.stdout.startsWith("Di Evans [")).toBe(true);
    expect(sdk!.stdout).toContain('code: "invalid_email"');
    expect(sdk!.stdout).toMatch(/rows: 2,\s+created: 1,[\s\S]*rejected: 1/);
    expect(sdk!.stdout.trim().split("\n").slice(-2)).toEqual(["1", "1"]);
    expect(JSON.parse(batch!.stdout).data).toMatchObject({ created: 2, failed: 0 });
    expect(JSON.parse(update!.stdout).data).toMatchObject({ updated: 1, failed: 0 });

    const workers = (await suite.api.as(token).get("/v1/workers?limit=100")).body.data as {
      name: string;
      hourly_rate: string | null;
    }[];
    expect(Object.fromEntries(workers.map((worker) => [worker.name, worker.hourly_rate]))).toEqual({
      "Ann Lee": "1250.50",
      "Bo Chen": "42.00",
      "Cy Diaz": "40.00",
      "Ed Fox": "44.00",
      "Flo Gray": null,
    });
  });
});
