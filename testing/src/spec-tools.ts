// Third-party tools the spec-surface tests drive: npm CLIs from testing/node_modules, run with Bun,
// so no Node is needed (headless Chromium is in browser.ts).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const BIN = path.resolve(import.meta.dir, "../node_modules/.bin");

export interface ToolRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs an npm binary of the e2e workspace, offline: no telemetry, no update checks. `cwd` for
 * tools that write beside themselves.
 */
export async function runTool(name: string, args: string[], cwd?: string): Promise<ToolRun> {
  const child = Bun.spawn([process.execPath, path.join(BIN, name), ...args], {
    cwd,
    env: {
      ...process.env,
      REDOCLY_TELEMETRY: "off",
      REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
      NO_UPDATE_NOTIFIER: "1",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { exitCode, stdout, stderr };
}

/** A scratch directory for one test, removed by the returned cleanup. */
export function scratchDir(prefix: string): {
  dir: string;
  write(name: string, content: string): string;
  remove(): void;
} {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return {
    dir,
    write(name, content) {
      const file = path.join(dir, name);
      writeFileSync(file, content);
      return file;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
