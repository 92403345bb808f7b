// Starts a server script of the bench (ours or the raw baseline) as a process on a database, on a
// port it picks, and waits for its "listening on" line.
import path from "node:path";
import type { Subprocess } from "bun";

const ROOT = path.resolve(import.meta.dir, "..");

export interface SpawnedServer {
  baseUrl: string;
  /** Its Prometheus endpoint, when it serves one. */
  metricsUrl?: string;
  process: Subprocess<"ignore", "pipe", "inherit">;
}

/**
 * `script` is relative to the repository; `env` adds to the bench's defaults; `profileDir` runs it
 * under `--cpu-prof`; `runtime` runs it with another executable than this Bun (the peers' Node).
 */
export async function spawnServer(
  script: string,
  databaseUrl: string,
  options: {
    env?: Record<string, string>;
    profileDir?: string;
    /** The profile's sampling interval, µs (Bun's default 1,000). */
    profileIntervalUs?: number;
    runtime?: string;
  } = {},
): Promise<SpawnedServer> {
  const profile = options.profileDir
    ? [
        "--cpu-prof",
        `--cpu-prof-dir=${options.profileDir}`,
        ...(options.profileIntervalUs ? [`--cpu-prof-interval=${options.profileIntervalUs}`] : []),
      ]
    : [];
  const runtime = options.runtime ?? process.execPath;
  const child = Bun.spawn([runtime, ...profile, path.resolve(ROOT, script)], {
    cwd: ROOT,
    stdin: "ignore",
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: "0",
      HOST: "127.0.0.1",
      ERP_SKIP_DEMO: "1",
      LOG_LEVEL: "warn",
      ...options.env,
    },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = child.stdout.getReader();
  let seen = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${script} did not start:\n${seen}`);
    seen += new TextDecoder().decode(value);
    const port = /listening on http:\/\/[^:]+:(\d+)/.exec(seen)?.[1];
    if (port) {
      reader.releaseLock();
      void child.stdout.pipeTo(new WritableStream()).catch(() => {});
      const metricsUrl = /^metrics: (\S+)$/m.exec(seen)?.[1];
      return { baseUrl: `http://127.0.0.1:${port}`, metricsUrl, process: child };
    }
  }
}
