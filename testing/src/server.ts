// Starts real server processes on the throw-away test database and stops them.
import path from "node:path";
import type { Subprocess } from "bun";
import { streamText } from "./stream-text.ts";

export const ROOT = path.resolve(import.meta.dir, "../..");

export function testDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error("TEST_DATABASE_URL is not set: run the tests with `bun run test`");
  return url;
}

export interface RunningServer {
  baseUrl: string;
  port: number;
  /** Its Prometheus endpoint (each test server gets a free port for it). */
  metricsUrl: string | undefined;
  process: Subprocess<"ignore", "pipe", "pipe">;
  /** Everything the server wrote to stderr so far. */
  logs(): string;
  /** Everything it wrote to stdout so far: its start lines, then one line per request. */
  output(): string;
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
      METRICS_LISTEN: "127.0.0.1:0",
      ...options.env,
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const stderr = streamText(child.stderr);
  const out = { text: "" };
  const { port, metricsUrl } = await readPort(child.stdout, stderr.text, out);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    metricsUrl,
    process: child,
    logs: stderr.text,
    output: () => out.text,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return child.exited;
    },
  };
}

interface Started {
  port: number;
  metricsUrl: string | undefined;
}

/** Reads stdout until the server says where it listens; everything it writes stays in `out`. */
async function readPort(
  stdout: ReadableStream<Uint8Array>,
  logs: () => string,
  out: { text: string },
): Promise<Started> {
  const reader = stdout.getReader();
  const decoder = new TextDecoder();
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    out.text += decoder.decode(value, { stream: true });
    const match = /listening on http:\/\/[^:]+:(\d+)/.exec(out.text);
    if (match) {
      void (async () => {
        for (;;) {
          const next = await reader.read().catch(() => ({ done: true, value: undefined }));
          if (next.done) return;
          out.text += decoder.decode(next.value, { stream: true });
        }
      })();
      return {
        port: Number(match[1]),
        metricsUrl: /^metrics: (http:\/\/\S+)$/m.exec(out.text)?.[1],
      };
    }
  }
  throw new Error(`the server did not start:\n${out.text}\n${logs()}`);
}
