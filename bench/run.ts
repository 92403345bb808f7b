// `bun run bench`: what an Idempotency-Key costs on a create. Provisions a throw-away database
// (as `bun run test` does), starts a real server on it, times creates with and without a key,
// sequentially and concurrently, beside a raw INSERT for scale; prints a table and writes
// bench/results.json.
import path from "node:path";
import { cpus } from "node:os";
import { connectDatabase, createCompany, migrateDatabase, type DatabaseHandle } from "@erp/server/admin";
import { createDatabase, dropDatabase, provisionDatabaseServer, withDatabase } from "../scripts/lib/provision.ts";

const ROOT = path.resolve(import.meta.dir, "..");
const COUNT = Number(process.env.BENCH_COUNT ?? 500);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const WARMUP = 50;
const ROUNDS = 10;

interface Result {
  scenario: string;
  count: number;
  concurrency: number;
  mean_ms: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  per_second: number;
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const round = (value: number): number => Math.round(value * 100) / 100;

/** Runs `task(i)` for each i in `indexes`, `concurrency` at a time; returns each call's duration and the wall time. */
async function timeCalls(indexes: number[], concurrency: number, task: (i: number) => Promise<void>): Promise<{ durations: number[]; elapsed: number }> {
  const durations: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < indexes.length) {
      const i = indexes[next++]!;
      const t0 = performance.now();
      await task(i);
      durations.push(performance.now() - t0);
    }
  }));
  return { durations, elapsed: performance.now() - started };
}

function summarize(scenario: string, concurrency: number, durations: number[], elapsed: number): Result {
  const sorted = [...durations].sort((a, b) => a - b);
  return {
    scenario, count: sorted.length, concurrency,
    mean_ms: round(sorted.reduce((sum, d) => sum + d, 0) / sorted.length),
    p50_ms: round(percentile(sorted, 50)),
    p95_ms: round(percentile(sorted, 95)),
    p99_ms: round(percentile(sorted, 99)),
    per_second: Math.round((sorted.length / elapsed) * 1000),
  };
}

/**
 * Runs the scenarios in ROUNDS slices, alternating their order each round, so that drift on
 * a shared machine (other load, a warming cache, a growing table) hits every scenario alike.
 */
async function compare(scenarios: { name: string; task: (i: number) => Promise<void> }[], count: number, concurrency: number): Promise<Result[]> {
  const runs = scenarios.map(() => ({ durations: [] as number[], elapsed: 0 }));
  const slice = Math.ceil(count / ROUNDS);
  for (let round = 0; round < ROUNDS; round++) {
    const indexes = Array.from({ length: Math.min(slice, count - round * slice) }, (_, i) => round * slice + i);
    const order = scenarios.map((_, i) => i);
    if (round % 2) order.reverse();
    for (const s of order) {
      const { durations, elapsed } = await timeCalls(indexes, concurrency, scenarios[s]!.task);
      runs[s]!.durations.push(...durations);
      runs[s]!.elapsed += elapsed;
    }
  }
  return scenarios.map((scenario, i) => summarize(scenario.name, concurrency, runs[i]!.durations, runs[i]!.elapsed));
}

async function startServer(databaseUrl: string): Promise<{ baseUrl: string; stop(): Promise<void> }> {
  const child = Bun.spawn([process.execPath, path.join(ROOT, "server/src/main.ts")], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: "0", HOST: "127.0.0.1", ERP_SKIP_DEMO: "1", LOG_LEVEL: "warn" },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = child.stdout.getReader();
  let seen = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the server did not start:\n${seen}`);
    seen += new TextDecoder().decode(value);
    const port = /listening on http:\/\/[^:]+:(\d+)/.exec(seen)?.[1];
    if (port) {
      reader.releaseLock();
      void child.stdout.pipeTo(new WritableStream()).catch(() => {});
      return { baseUrl: `http://127.0.0.1:${port}`, stop: async () => { child.kill("SIGTERM"); await child.exited; } };
    }
  }
}

async function suite(db: DatabaseHandle, baseUrl: string): Promise<Result[]> {
  const token = async (): Promise<string> => (await createCompany(db.db, { name: `Bench ${crypto.randomUUID()}`, plan: "enterprise", addons: ["api"] })).token;
  const creator = (auth: string, keyed: boolean, prefix: string) => async (i: number): Promise<void> => {
    const headers: Record<string, string> = { authorization: `Bearer ${auth}`, "content-type": "application/json" };
    if (keyed) headers["idempotency-key"] = `${prefix}-${i}`;
    const response = await fetch(`${baseUrl}/v1/projects`, { method: "POST", headers, body: JSON.stringify({ name: `${prefix} ${i}`, code: `${prefix}-${i}` }) });
    if (response.status !== 201) throw new Error(`POST /v1/projects → ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  };
  const rawInsert = (companyId: number, prefix: string) => async (i: number): Promise<void> => {
    await db.pool.execute(
      "INSERT INTO projects (company_id, name, code, billing_mode, currency, status) VALUES (?, ?, ?, 'FIXED_PRICE', 'USD', 'DRAFT')",
      [companyId, `${prefix} ${i}`, `${prefix}-${i}`]);
  };

  const warm = await token();
  await timeCalls(Array.from({ length: WARMUP }, (_, i) => i), 4, creator(warm, true, "warm"));
  await timeCalls(Array.from({ length: WARMUP }, (_, i) => i), 4, creator(warm, false, "warm-plain"));

  const results: Result[] = [];
  for (const concurrency of [1, CONCURRENCY]) {
    const plain = await token();
    const keyed = await token();
    const raw = await createCompany(db.db, { name: `Bench raw ${crypto.randomUUID()}`, plan: "enterprise", addons: ["api"] });
    results.push(...await compare([
      { name: "create, no key", task: creator(plain, false, "plain") },
      { name: "create, Idempotency-Key", task: creator(keyed, true, "keyed") },
    ], COUNT, concurrency));
    results.push(...await compare([
      { name: "replay of a keyed create", task: creator(keyed, true, "keyed") },
      { name: "raw INSERT (no HTTP)", task: rawInsert(raw.company_id, "raw") },
    ], COUNT, concurrency));
  }
  return results;
}

function table(results: Result[]): string {
  const header = ["scenario", "n", "conc", "mean ms", "p50 ms", "p95 ms", "p99 ms", "req/s"];
  const rows = results.map((r) => [r.scenario, r.count, r.concurrency, r.mean_ms, r.p50_ms, r.p95_ms, r.p99_ms, r.per_second].map(String));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

function overhead(results: Result[]): Record<string, { mean_ms: number; percent: number; throughput_percent: number }> {
  const out: Record<string, { mean_ms: number; percent: number; throughput_percent: number }> = {};
  for (const concurrency of new Set(results.map((r) => r.concurrency))) {
    const plain = results.find((r) => r.concurrency === concurrency && r.scenario === "create, no key")!;
    const keyed = results.find((r) => r.concurrency === concurrency && r.scenario === "create, Idempotency-Key")!;
    out[`concurrency ${concurrency}`] = {
      mean_ms: round(keyed.mean_ms - plain.mean_ms),
      percent: round(((keyed.mean_ms - plain.mean_ms) / plain.mean_ms) * 100),
      throughput_percent: round(((keyed.per_second - plain.per_second) / plain.per_second) * 100),
    };
  }
  return out;
}

const server = await provisionDatabaseServer({ envUrl: process.env.BENCH_DATABASE_URL || undefined, envName: "BENCH_DATABASE_URL" });
const name = `erp_bench_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`;
const url = withDatabase(server.url, name);
let running: Awaited<ReturnType<typeof startServer>> | undefined;
let db: DatabaseHandle | undefined;
try {
  await createDatabase(server.url, name);
  await migrateDatabase(url);
  db = connectDatabase(url, { connectionLimit: CONCURRENCY });
  const [versionRows] = await db.pool.query("SELECT VERSION() AS v");
  running = await startServer(url);
  const results = await suite(db, running.baseUrl);
  const cost = overhead(results);
  console.log(table(results));
  for (const [label, c] of Object.entries(cost)) {
    console.log(`Idempotency-Key on a create, ${label}: ${c.mean_ms >= 0 ? "+" : ""}${c.mean_ms} ms mean (${c.percent >= 0 ? "+" : ""}${c.percent}%), throughput ${c.throughput_percent >= 0 ? "+" : ""}${c.throughput_percent}%`);
  }
  const environment = { bun: Bun.version, database: (versionRows as { v: string }[])[0]?.v, cpus: cpus().length, date: new Date().toISOString() };
  await Bun.write(path.join(ROOT, "bench/results.json"), `${JSON.stringify({ environment, results, idempotency_overhead: cost }, null, 2)}\n`);
  console.log("written: bench/results.json");
} finally {
  await running?.stop();
  await db?.close();
  await dropDatabase(server.url, name).catch((error) => console.error(`could not drop ${name}: ${error}`));
  await server.stop();
}
