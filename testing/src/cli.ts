// Runs the real `erp` CLI (bun cli/src/main.ts) as a child process and captures what it printed.
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./server.ts";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Added to a clean environment: no ERP_* from the caller, and a config file of its own. */
  env?: Record<string, string>;
  stdin?: string;
}

/** A fresh directory for config files, reports and import files. */
export const tempDir = (): string => mkdtempSync(path.join(os.tmpdir(), "erp-cli-test-"));

const isolated = tempDir();

export async function erp(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith("ERP_") && value !== undefined) env[name] = value;
  const child = Bun.spawn([process.execPath, path.join(ROOT, "cli/src/main.ts"), ...args], {
    cwd: ROOT,
    // The import journal of each test file lives in its own state directory, never in the user's home.
    env: { ...env, ERP_CONFIG: path.join(isolated, "no-login.json"), XDG_STATE_HOME: path.join(isolated, "state"), ...options.env },
    stdin: options.stdin === undefined ? "ignore" : new Blob([options.stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

/** The same CLI bound to one server and token through ERP_BASE_URL/ERP_TOKEN. */
export function erpFor(baseUrl: string, token: string): (args: string[], options?: CliOptions) => Promise<CliResult> {
  return (args, options = {}) => erp(args, { ...options, env: { ERP_BASE_URL: baseUrl, ERP_TOKEN: token, ...options.env } });
}

export const ndjson = (text: string): any[] => text.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line));
