// Starts real server processes on the throw-away test database and stops them.
import path from "node:path";
import type { Subprocess } from "bun";

export const ROOT = path.resolve(import.meta.dir, "../..");

export function testDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error("TEST_DATABASE_URL is not set: run the tests with `bun run test`");
  return url;
}

export interface RunningServer {
  baseUrl: string;
  port: number;
  process: Subprocess<"ignore", "pipe", "pipe">;
  /** Everything the server wrote to stderr so far. */
  logs(): string;
  /** Sends the signal (SIGTERM by default) and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number>;
}

export interface ServerOptions {
  env?: Record<string, string>;
  port?: number;
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const child = Bun.spawn([process.execPath, path.join(ROOT, "server/src/main.ts")], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: testDatabaseUrl(),
      PORT: String(options.port ?? 0),
      HOST: "127.0.0.1",
      ERP_SKIP_DEMO: "1",
      LOG_LEVEL: "warn",
      ...options.env,
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let stderr = "";
  void (async () => {
    const reader = child.stderr.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      stderr += new TextDecoder().decode(value);
    }
  })();
  const port = await readPort(child.stdout, () => stderr);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    process: child,
    logs: () => stderr,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return child.exited;
    },
  };
}

async function readPort(stdout: ReadableStream<Uint8Array>, logs: () => string): Promise<number> {
  const reader = stdout.getReader();
  let seen = "";
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += new TextDecoder().decode(value);
    const match = /listening on http:\/\/[^:]+:(\d+)/.exec(seen);
    if (match) {
      reader.releaseLock();
      void stdout.pipeTo(new WritableStream()).catch(() => {});
      return Number(match[1]);
    }
  }
  throw new Error(`the server did not start:\n${seen}\n${logs()}`);
}
