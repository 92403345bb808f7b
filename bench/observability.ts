// Bench leg: what metrics, traces and request logs cost. Two servers of ours on one database, one
// with all three off (LOG_FORMAT=off, METRICS_LISTEN=off, no OTLP endpoint), one with all three on
// (JSON request logs, /metrics scraped every second, spans exported over OTLP in its default
// protobuf encoding to a local receiver), take GET one and create in alternating rounds; the goal
// is >= 0.95 of the off server's rate.
// `bun run bench` runs it after the scenarios; `bun bench/observability.ts [--quick]` runs it alone.
import autocannon from "autocannon";
import { connectDatabase, createCompany } from "@erp/server/admin";
import { countSpans } from "./otlp-span-count.ts";
import { cpuSeconds } from "./process-cpu.ts";
import { type SpawnedServer, spawnServer } from "./spawn-server.ts";
import { withThrowAwayDatabase } from "./throw-away-database.ts";

export interface ObservabilityFigures {
  scenario: string;
  off_rps: number[];
  on_rps: number[];
  /** The rounds' median p99 latency, ms. */
  off_p99_ms: number;
  on_p99_ms: number;
  /** Median of the on server's rounds over the median of the off server's. */
  ratio: number;
  /** Each server's CPU (user + system, all threads, from /proc) per answered request, µs, by round. */
  off_cpu_us: number[];
  on_cpu_us: number[];
  spans_received: number;
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function rate(
  baseUrl: string,
  requests: autocannon.Request[],
  seconds: number,
): Promise<{ rps: number; p99: number; answered: number }> {
  const result = await autocannon({
    url: baseUrl,
    connections: 32,
    duration: seconds,
    requests,
  });
  const good = Object.entries(result.statusCodeStats ?? {})
    .filter(([code]) => code === "200" || code === "201")
    .reduce((sum, [, stat]) => sum + (stat as { count: number }).count, 0);
  return { rps: Math.round(good / seconds), p99: result.latency.p99, answered: good };
}

export async function observabilityCost(
  databaseUrl: string,
  quick: boolean,
  rounds: number = quick ? 1 : 5,
): Promise<ObservabilityFigures[]> {
  const seconds = quick ? 1 : 4;
  let spans = 0;
  const receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    // Counts the spans without decoding them (otlp-span-count.ts).
    async fetch(request) {
      const body = new Uint8Array(await request.arrayBuffer());
      spans += countSpans(request.headers.get("content-type"), body);
      return Response.json({});
    },
  });
  const off = await spawnServer("server/src/main.ts", databaseUrl, {
    env: { LOG_FORMAT: "off", METRICS_LISTEN: "off" },
  });
  const on = await spawnServer("server/src/main.ts", databaseUrl, {
    env: {
      LOG_FORMAT: "json",
      METRICS_LISTEN: "127.0.0.1:0",
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
    },
  });
  const metricsUrl = on.metricsUrl;
  const scraper = setInterval(() => {
    if (metricsUrl)
      void fetch(metricsUrl).then(
        (r) => r.text(),
        () => "",
      );
  }, 1000);
  const db = connectDatabase(databaseUrl, { connectionLimit: 2 });
  try {
    const { token } = await createCompany(db.db, {
      name: "Observability bench",
      plan: "enterprise",
      addons: ["api"],
    });
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const made = await fetch(`${off.baseUrl}/v1/workers`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "Read again and again" }),
    });
    const id = ((await made.json()) as { data: { id: number } }).data.id;
    const scenarios: { name: string; requests: autocannon.Request[] }[] = [
      { name: "GET one", requests: [{ method: "GET", path: `/v1/workers/${id}`, headers }] },
      {
        name: "create",
        requests: [
          { method: "POST", path: "/v1/workers", headers, body: '{"name":"Observed worker"}' },
        ],
      },
    ];
    const figures: ObservabilityFigures[] = [];
    for (const scenario of scenarios) {
      const servers: [string, SpawnedServer][] = [
        ["off", off],
        ["on", on],
      ];
      for (const [, server] of servers)
        await rate(server.baseUrl, scenario.requests, quick ? 1 : 2);
      const rates: Record<string, number[]> = { off: [], on: [] };
      const p99s: Record<string, number[]> = { off: [], on: [] };
      const cpus: Record<string, number[]> = { off: [], on: [] };
      for (let round = 0; round < rounds; round++) {
        // Alternate which goes first, so neither always meets the other's leftovers.
        const order = round % 2 === 0 ? servers : [...servers].reverse();
        for (const [name, server] of order) {
          const cpuBefore = cpuSeconds(server.process.pid);
          const measured = await rate(server.baseUrl, scenario.requests, seconds);
          const cpu = cpuSeconds(server.process.pid) - cpuBefore;
          cpus[name]!.push(Math.round((cpu / Math.max(1, measured.answered)) * 1e7) / 10);
          rates[name]!.push(measured.rps);
          p99s[name]!.push(measured.p99);
        }
      }
      figures.push({
        scenario: scenario.name,
        off_rps: rates.off!,
        on_rps: rates.on!,
        off_p99_ms: median(p99s.off!),
        on_p99_ms: median(p99s.on!),
        ratio: Math.round((median(rates.on!) / Math.max(1, median(rates.off!))) * 100) / 100,
        off_cpu_us: cpus.off!,
        on_cpu_us: cpus.on!,
        spans_received: spans,
      });
    }
    return figures;
  } finally {
    clearInterval(scraper);
    off.process.kill();
    on.process.kill();
    await Promise.all([off.process.exited, on.process.exited]);
    await receiver.stop(true);
    await db.close();
  }
}

export function describeObservability(figures: ObservabilityFigures[]): string {
  return figures
    .map(
      (f) =>
        `Metrics + traces + JSON logs on, ${f.scenario}: ${f.ratio} of the same server with them ` +
        `off (on ${f.on_rps.join("/")} req/s, off ${f.off_rps.join("/")}; goal >= 0.95; ` +
        `p99 on ${f.on_p99_ms} ms, off ${f.off_p99_ms} ms; ` +
        `server CPU per request on ${f.on_cpu_us.join("/")} µs, off ${f.off_cpu_us.join("/")}; ` +
        `${f.spans_received} spans received by then)`,
    )
    .join("\n");
}

if (import.meta.main) {
  const quick = process.argv.includes("--quick");
  // `--rounds=N`: another number of alternating rounds than the 5 of the full run.
  const rounds = Number(
    /^--rounds=(\d+)$/.exec(process.argv.find((a) => a.startsWith("--rounds=")) ?? "")?.[1],
  );
  await withThrowAwayDatabase("erp_bench_obs", async (url) => {
    console.log(describeObservability(await observabilityCost(url, quick, rounds || undefined)));
  });
}
