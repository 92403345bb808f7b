// Runs tsc on sdk/type-errors.ts: every @ts-expect-error line must fail, and only those lines.
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const sdkDir = resolve(import.meta.dir, "../..");
const rootConfig = resolve(sdkDir, "../tsconfig.json");
const tsc = require.resolve("typescript/lib/tsc.js");

/** Type-checks one file under the repository's strict settings; returns tsc's exit code and output. */
async function typeCheck(file: string): Promise<{ code: number; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), "sdk-types-"));
  const config = join(dir, "tsconfig.json");
  writeFileSync(
    config,
    JSON.stringify({
      extends: rootConfig,
      compilerOptions: { types: [] },
      include: [file],
      exclude: [],
    }),
  );
  const child = Bun.spawn([process.execPath, tsc, "--noEmit", "--pretty", "false", "-p", config], {
    stdout: "pipe",
  });
  const output = await new Response(child.stdout).text();
  return { code: await child.exited, output };
}

test("sdk/type-errors.ts compiles only because each intended error is flagged", async () => {
  const source = readFileSync(join(sdkDir, "type-errors.ts"), "utf8");
  const lines = source.split("\n");
  const expected = lines.flatMap((line, i) =>
    line.trim().startsWith("// @ts-expect-error") ? [i + 2] : [],
  );
  expect(expected.length).toBeGreaterThan(15);

  // Without the directives, exactly the lines below them must fail.
  const dir = mkdtempSync(join(tmpdir(), "sdk-type-errors-"));
  const stripped = join(dir, "type-errors.ts");
  writeFileSync(
    stripped,
    lines
      .map((line) => line.replace(/\/\/ @ts-expect-error.*/, "// expected error below"))
      .join("\n")
      .replace('from "./mod.ts"', `from ${JSON.stringify(join(sdkDir, "mod.ts"))}`),
  );
  const [withDirectives, withoutDirectives] = await Promise.all([
    typeCheck(join(sdkDir, "type-errors.ts")),
    typeCheck(stripped),
  ]);

  expect(withDirectives.output).toBe("");
  expect(withDirectives.code).toBe(0);
  const failing = new Set(
    [...withoutDirectives.output.matchAll(/type-errors\.ts\((\d+),\d+\): error/g)].map((m) =>
      Number(m[1]),
    ),
  );
  expect([...failing].sort((a, b) => a - b)).toEqual(expected);
}, 60_000);
