// Runs the real `erp` CLI (bun cli/src/main.ts) as a child process and captures what it printed.
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Subprocess } from "bun";
import { ROOT } from "./server.ts";
import { streamText } from "./stream-text.ts";

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

/** The CLI started and left running: its process (to signal it) and what it printed once it ends. */
export interface RunningCli {
  process: Subprocess<Blob | "ignore", "pipe", "pipe">;
  /** What it printed on stdout so far. */
  printed(): string;
  finished: Promise<CliResult>;
}

export function startErp(args: string[], options: CliOptions = {}): RunningCli {
  const env: Record<string, string> = {};
  // Neither the caller's ERP_* nor a script runner's npm_* (the CLI is started directly, not by `bun run`).
  for (const [name, value] of Object.entries(process.env))
    if (!name.startsWith("ERP_") && !name.startsWith("npm_") && value !== undefined)
      env[name] = value;
  const child = Bun.spawn([process.execPath, path.join(ROOT, "cli/src/main.ts"), ...args], {
    cwd: ROOT,
    // The import journal of each test file lives in its own state directory, never in the user's home.
    env: {
      ...env,
      ERP_CONFIG: path.join(isolated, "no-login.json"),
      XDG_STATE_HOME: path.join(isolated, "state"),
      ...options.env,
    },
    stdin: options.stdin === undefined ? "ignore" : new Blob([options.stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const stdout = streamText(child.stdout);
  const finished = Promise.all([stdout.done, streamText(child.stderr).done, child.exited]).then(
    ([stdout, stderr, code]) => ({ code, stdout, stderr }),
  );
  return { process: child, printed: stdout.text, finished };
}

export function erp(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return startErp(args, options).finished;
}

/**
 * A run of the CLI with how long it took and its peak RSS (Linux's VmHWM, read every 10 ms as it
 * runs: a subprocess's resourceUsage() answers the largest of all children so far, not its own).
 */
export async function measuredErp(
  args: string[],
  options: CliOptions = {},
): Promise<CliResult & { seconds: number; peakMb: number }> {
  const started = performance.now();
  const running = startErp(args, options);
  let peakKb = 0;
  const sample = (): void => {
    try {
      const status = readFileSync(`/proc/${running.process.pid}/status`, "utf8");
      peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0));
    } catch {
      // Gone already: the last reading stands.
    }
  };
  const timer = setInterval(sample, 10);
  const result = await running.finished;
  clearInterval(timer);
  return { ...result, seconds: (performance.now() - started) / 1000, peakMb: peakKb / 1024 };
}

/**
 * The CLI on a terminal: run under util-linux `script`, which gives it a pseudo-terminal for stdin
 * and stderr, with `typed` typed at it (an answer to a question). What it printed comes back as
 * one text (the terminal mixes stdout, stderr and the echo of what was typed).
 */
export async function erpOnTerminal(
  args: string[],
  typed: string,
  env: Record<string, string>,
): Promise<{ code: number; screen: string }> {
  const quoted = [process.execPath, path.join(ROOT, "cli/src/main.ts"), ...args]
    .map((word) => `'${word.replaceAll("'", "'\\''")}'`)
    .join(" ");
  const child = Bun.spawn(["script", "--quiet", "--return", "--command", quoted, "/dev/null"], {
    cwd: ROOT,
    env: { ...process.env, ERP_CONFIG: path.join(isolated, "no-login.json"), ...env },
    stdin: new Blob([typed]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [screen, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  return { code, screen };
}

/** The same CLI bound to one server and token through ERP_BASE_URL/ERP_TOKEN. */
export function erpFor(
  baseUrl: string,
  token: string,
): (args: string[], options?: CliOptions) => Promise<CliResult> {
  return (args, options = {}) => erp(args, connected(baseUrl, token, options));
}

/** startErp bound to one server and token, as erpFor. */
export function startErpFor(
  baseUrl: string,
  token: string,
): (args: string[], options?: CliOptions) => RunningCli {
  return (args, options = {}) => startErp(args, connected(baseUrl, token, options));
}

const connected = (baseUrl: string, token: string, options: CliOptions): CliOptions => ({
  ...options,
  env: { ERP_BASE_URL: baseUrl, ERP_TOKEN: token, ...options.env },
});

export const ndjson = (text: string): any[] =>
  text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
