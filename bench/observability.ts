// Bench leg: what metrics, traces and request logs cost. Servers of ours on one database, some
// with all three off (LOG_FORMAT=off, METRICS_LISTEN=off, no OTLP endpoint), as many with all three
// on (JSON request logs, /metrics scraped every second, spans exported over OTLP in its default
// protobuf encoding to a local receiver), take GET one and create in alternating rounds; the goal
// is >= 0.95 of the off servers' rate. Each side is several processes: two processes of the same
// server, started alike, differ by up to 5% for their whole life (bench/README.md, "Several
// processes a side"), as much as the goal's margin.
// `bun run bench` runs it after the scenarios; `bun bench/observability.ts [--quick]
// [--rounds=N] [--processes=N]` runs it alone.
import autocannon from "autocannon";
import { connectDatabase, createCompany } from "@erp/server/admin";
import { countSpans } from "./otlp-span-count.ts";
import { cpuSeconds } from "./process-cpu.ts";
import { type SpawnedServer, spawnServer } from "./spawn-server.ts";
import { withThrowAwayDatabase } from "./throw-away-database.ts";

export interface ObservabilityFigures {
  scenario: string;
  /** Processes per side; each takes `rounds` rounds. */
  processes: number;
  /** Every round of every process of the side, process by process. */
  off_rps: number[];
  on_rps: number[];
  /** Each process's median rate: how far apart servers started alike are. */
  off_process_rps: number[];
  on_process_rps: number[];
  /** The rounds' median p99 latency, ms. */
  off_p99_ms: number;
  on_p99_ms: number;
  /** Median of the on side's rounds over the median of the off side's (all processes). */
  ratio: number;
  /** The CPU (user + system, all threads, from /proc) per answered request of each round, µs, as the rates. */
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
  rounds: number = quick ? 1 : 3,
  processes: number = quick ? 1 : 3,
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
  const offs: SpawnedServer[] = [];
  const ons: SpawnedServer[] = [];
  const scraper = setInterval(() => {
    for (const { metricsUrl } of ons)
      if (metricsUrl)
        void fetch(metricsUrl).then(
          (r) => r.text(),
          () => "",
        );
  }, 1000);
  const db = connectDatabase(databaseUrl, { connectionLimit: 2 });
  try {
    for (let i = 0; i < processes; i++) {
      offs.push(
        await spawnServer("server/src/main.ts", databaseUrl, {
          env: { LOG_FORMAT: "off", METRICS_LISTEN: "off" },
        }),
      );
      ons.push(
        await spawnServer("server/src/main.ts", databaseUrl, {
          env: {
            LOG_FORMAT: "json",
            METRICS_LISTEN: "127.0.0.1:0",
            OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
          },
        }),
      );
    }
    // Each off server beside an on one.
    const pairs = offs.map((off, i): [SpawnedServer, SpawnedServer] => [off, ons[i]!]);
    const { token } = await createCompany(db.db, {
      name: "Observability bench",
      plan: "enterprise",
      addons: ["api"],
    });
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const made = await fetch(`${offs[0]!.baseUrl}/v1/workers`, {
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
      for (const server of [...offs, ...ons])
        await rate(server.baseUrl, scenario.requests, quick ? 1 : 2);
      const sides = { off: new Measured(processes), on: new Measured(processes) };
      for (let round = 0; round < rounds; round++)
        for (const [i, [off, on]] of pairs.entries()) {
          // Alternate which goes first, so neither always meets the other's leftovers.
          const order: ["off" | "on", SpawnedServer][] = [
            ["off", off],
            ["on", on],
          ];
          if ((round + i) % 2 === 1) order.reverse();
          for (const [side, server] of order) {
            const cpuBefore = cpuSeconds(server.process.pid);
            const measured = await rate(server.baseUrl, scenario.requests, seconds);
            const cpu = cpuSeconds(server.process.pid) - cpuBefore;
            sides[side].add(i, measured, cpu);
          }
        }
      const [off, on] = [sides.off.rps.flat(), sides.on.rps.flat()];
      figures.push({
        scenario: scenario.name,
        processes,
        off_rps: off,
        on_rps: on,
        off_process_rps: sides.off.rps.map(median),
        on_process_rps: sides.on.rps.map(median),
        off_p99_ms: median(sides.off.p99s.flat()),
        on_p99_ms: median(sides.on.p99s.flat()),
        ratio: Math.round((median(on) / Math.max(1, median(off))) * 100) / 100,
        off_cpu_us: sides.off.cpus.flat(),
        on_cpu_us: sides.on.cpus.flat(),
        spans_received: spans,
      });
    }
    return figures;
  } finally {
    clearInterval(scraper);
    for (const server of [...offs, ...ons]) server.process.kill();
    await Promise.all([...offs, ...ons].map((server) => server.process.exited));
    await receiver.stop(true);
    await db.close();
  }
}

/** One side's rounds, process by process: rates, p99s and CPU per answered request (µs). */
class Measured {
  readonly rps: number[][];
  readonly p99s: number[][];
  readonly cpus: number[][];

  constructor(processes: number) {
    const perProcess = () => Array.from({ length: processes }, (): number[] => []);
    [this.rps, this.p99s, this.cpus] = [perProcess(), perProcess(), perProcess()];
  }

  add(process: number, measured: { rps: number; p99: number; answered: number }, cpu: number) {
    this.rps[process]!.push(measured.rps);
    this.p99s[process]!.push(measured.p99);
    this.cpus[process]!.push(Math.round((cpu / Math.max(1, measured.answered)) * 1e7) / 10);
  }
}

export function describeObservability(figures: ObservabilityFigures[]): string {
  return figures
    .map(
      (f) =>
        `Metrics + traces + JSON logs on, ${f.scenario}: ${f.ratio} of the same server with them ` +
        `off (${f.processes} ${f.processes === 1 ? "process" : "processes"} a side; their medians ` +
        `on ${f.on_process_rps.join("/")} req/s, ` +
        `off ${f.off_process_rps.join("/")}; all rounds on ${f.on_rps.join("/")}, ` +
        `off ${f.off_rps.join("/")}; goal >= 0.95; ` +
        `p99 on ${f.on_p99_ms} ms, off ${f.off_p99_ms} ms; ` +
        `server CPU per request on ${f.on_cpu_us.join("/")} µs, off ${f.off_cpu_us.join("/")}; ` +
        `${f.spans_received} spans received by then)`,
    )
    .join("\n");
}

if (import.meta.main) {
  const quick = process.argv.includes("--quick");
  // `--rounds=N`, `--processes=N`: other numbers of rounds per process (3 in the full run) and
  // of processes per side (3).
  const option = (name: string): number | undefined =>
    Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)) ||
    undefined;
  await withThrowAwayDatabase("erp_bench_obs", async (url) => {
    const figures = await observabilityCost(url, quick, option("rounds"), option("processes"));
    console.log(describeObservability(figures));
  });
}
