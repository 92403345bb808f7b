// What several bench legs measure alike: the latencies of GET pages taking turns, and a CLI command
// run against a server as a user runs it (its own working and state directories).
import path from "node:path";

const ROOT = path.resolve(import.meta.dir, "..");

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** A page's median and p99 latency, ms, unrounded. */
export interface PageLatency {
  medianMs: number;
  p99Ms: number;
}

/**
 * Each page GET `warmups` times untimed, then `requests` times timed, the pages taking turns so that
 * a load coming and going on the machine falls on each alike. A page that is not 200 throws.
 */
export async function pageLatencies(
  baseUrl: string,
  pages: { token: string; path: string }[],
  requests: number,
  warmups = 3,
): Promise<PageLatency[]> {
  const send = async ({ token, path }: { token: string; path: string }): Promise<number> => {
    const started = performance.now();
    const response = await fetch(`${baseUrl}${path}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status}`);
    return performance.now() - started;
  };
  for (let i = 0; i < warmups; i++) for (const page of pages) await send(page);
  const timings: number[][] = pages.map(() => []);
  for (let i = 0; i < requests; i++)
    for (const [index, page] of pages.entries()) timings[index]!.push(await send(page));
  return timings.map((times) => {
    const sorted = [...times].sort((a, b) => a - b);
    return {
      medianMs: median(times),
      p99Ms: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!,
    };
  });
}

/** `erp <args>` in `dir`, against `baseUrl` with `token`, its state and config kept in `dir`. */
export function spawnCli(
  dir: string,
  baseUrl: string,
  token: string,
  args: string[],
  output: { stdout?: "ignore" | "pipe"; stderr?: "ignore" | "pipe" } = {},
) {
  return Bun.spawn([process.execPath, path.join(ROOT, "cli/src/main.ts"), ...args], {
    cwd: dir,
    env: {
      ...process.env,
      ERP_BASE_URL: baseUrl,
      ERP_TOKEN: token,
      XDG_STATE_HOME: dir,
      XDG_CONFIG_HOME: dir,
    },
    stdout: output.stdout ?? "ignore",
    stderr: output.stderr ?? "ignore",
  });
}
