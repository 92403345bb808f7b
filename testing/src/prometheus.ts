// A real Prometheus server for the tests (Debian's `prometheus` package, installed when missing,
// as the database is): it scrapes the given targets every second and answers PromQL queries.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Subprocess } from "bun";
import { ensureDebianTool } from "./debian-tools.ts";

/** The prometheus binary (Debian's package, installed when missing), or why there is none. */
export function findPrometheus(): { binary: string } | { missing: string } {
  const found = ensureDebianTool("prometheus", "prometheus");
  return "path" in found ? { binary: found.path } : found;
}

export interface RunningPrometheus {
  /** The value of a PromQL query whose answer is one number, or undefined when it has none. */
  value(query: string): Promise<number | undefined>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port as number;
  await probe.stop(true);
  return port;
}

export async function startPrometheus(
  binary: string,
  targets: string[],
): Promise<RunningPrometheus> {
  const dir = mkdtempSync(path.join(tmpdir(), "prometheus-"));
  const config = path.join(dir, "prometheus.yml");
  writeFileSync(
    config,
    [
      "global:",
      "  scrape_interval: 1s",
      "scrape_configs:",
      "  - job_name: erp",
      "    static_configs:",
      `      - targets: [${targets.map((target) => JSON.stringify(target)).join(", ")}]`,
      "",
    ].join("\n"),
  );
  const port = await freePort();
  const child: Subprocess = Bun.spawn(
    [
      binary,
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdout: "ignore", stderr: "pipe" },
  );
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await fetch(`${base}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error(
        `prometheus did not start: ${await new Response(child.stderr as ReadableStream).text()}`,
      );
    await Bun.sleep(200);
  }
  return {
    async value(query) {
      const response = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(query)}`);
      const body = (await response.json()) as {
        data: { result: { value: [number, string] }[] };
      };
      const first = body.data.result[0];
      return first === undefined ? undefined : Number(first.value[1]);
    },
    async stop() {
      child.kill();
      await child.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
