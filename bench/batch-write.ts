// 500-worker batches side by side (`bun bench/batch-write.ts [rounds] [--before DIR] [--no-peer]
// [--profile DIR] [--env NAME=VALUE]`, alone, on a throw-away database): our server, optionally a
// second one from another checkout (`--before DIR`, e.g. made by `git worktree add --detach ../before
// main`), and Platformatic DB's GraphQL `insertPeerWorkers` (installed as bench/peers.ts does), each
// sent the peers leg's bulk batch one request at a time, the servers taking turns batch by batch in a
// rotating order. Reports each server's p50/p90/p99 per batch, its CPU, page faults and RSS (/proc;
// our servers' CPU by thread, user and system apart), and the median over the rounds of one server's
// latency over another's in the same round: the figure the load of a shared machine disturbs least.
// `--profile DIR` runs our server under `--cpu-prof` (100 µs samples) into DIR; `--env` sets a
// variable for our server only (an allocator's or the engine's setting).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Subprocess } from "bun";
import { connectDatabase, createCompany } from "@erp/server/admin";
import { installPeers } from "./peers.ts";
import { cpuSeconds, pageFaults } from "./process-cpu.ts";
import { spawnServer } from "./spawn-server.ts";
import { withThrowAwayDatabase } from "./throw-away-database.ts";

const ROOT = path.resolve(import.meta.dir, "..");
const PEERS_DIR = process.env.BENCH_PEERS_DIR || path.join(ROOT, ".data/peers");
const PEER_TABLE = "peer_workers";
const BATCH = 500;
const WARM_UP = 20;

const flag = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const rounds = Number(process.argv[2]?.startsWith("--") ? 100 : (process.argv[2] ?? 100));
const before = flag("--before");
const profileDir = flag("--profile");
const withPeer = !process.argv.includes("--no-peer");
/** `--env NAME=VALUE`, repeatable: set for our server only. */
const oursEnv = Object.fromEntries(
  process.argv.flatMap((arg, i) =>
    process.argv[i - 1] === "--env"
      ? [[arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]]
      : [],
  ),
);

interface Contender {
  name: string;
  pid: number;
  send: () => Promise<void>;
  latencies: number[];
}

let serial = 0;
const items = () =>
  Array.from({ length: BATCH }, (_, i) => {
    const n = serial++;
    return {
      name: `Bulk ${process.pid}-${n}`,
      email: `bulk${n}@example.com`,
      phone: `+1 555 ${String(i).padStart(5, "0")}`,
    };
  });

const percentile = (values: number[], p: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
const round2 = (value: number): number => Math.round(value * 100) / 100;

function ours(name: string, baseUrl: string, token: string, pid: number): Contender {
  return {
    name,
    pid,
    latencies: [],
    send: async () => {
      const response = await fetch(`${baseUrl}/v1/workers/batch`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ items: items() }),
      });
      const answer = (await response.json()) as { data?: { failed?: number } };
      if (response.status !== 200 || answer.data?.failed !== 0)
        throw new Error(`${name} answered ${response.status}`);
    },
  };
}

function platformatic(baseUrl: string, companyId: number, pid: number): Contender {
  return {
    name: "platformatic",
    pid,
    latencies: [],
    send: async () => {
      const response = await fetch(`${baseUrl}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          query:
            "mutation($inputs: [PeerWorkerInput]!) { insertPeerWorkers(inputs: $inputs) { id } }",
          variables: {
            inputs: items().map((item) => ({
              ...item,
              companyId: String(companyId),
              status: "ACTIVE",
            })),
          },
        }),
      });
      const answer = (await response.json()) as { data?: { insertPeerWorkers?: unknown[] } };
      if (answer.data?.insertPeerWorkers?.length !== BATCH)
        throw new Error(`platformatic answered ${response.status}`);
    },
  };
}

await withThrowAwayDatabase("erp_bench_batch", async (url) => {
  const db = connectDatabase(url, { connectionLimit: 2 });
  const processes: Subprocess[] = [];
  try {
    const contenders: Contender[] = [];
    const company = () =>
      createCompany(db.db, { name: "Batch Co", plan: "enterprise", addons: ["api"] });
    const mine = await company();
    const server = await spawnServer("server/src/main.ts", url, {
      env: oursEnv,
      profileDir,
      profileIntervalUs: 100,
    });
    processes.push(server.process);
    contenders.push(ours("ours", server.baseUrl, mine.token, server.process.pid));
    if (before) {
      const theirs = await company();
      const other = await spawnServer(path.join(before, "server/src/main.ts"), url);
      processes.push(other.process);
      contenders.push(ours("before", other.baseUrl, theirs.token, other.process.pid));
    }
    if (withPeer) {
      const node = await installPeers();
      await db.pool.query(`CREATE TABLE ${PEER_TABLE} LIKE workers`);
      await db.pool.query(`ALTER TABLE ${PEER_TABLE} DROP PRIMARY KEY, ADD PRIMARY KEY (id)`);
      const peer = await spawnServer("bench/platformatic-server.mjs", url, {
        runtime: node,
        env: { PEERS_DIR, PEERS_TABLE: PEER_TABLE },
      });
      processes.push(peer.process);
      contenders.push(platformatic(peer.baseUrl, mine.company_id, peer.process.pid));
    }
    for (const contender of contenders) for (let i = 0; i < WARM_UP; i++) await contender.send();
    const start = contenders.map(usage);
    const ratios = new Map<string, number[]>();
    for (let round = 0; round < rounds; round++) {
      const order = contenders.map((_, i) => contenders[(i + round) % contenders.length]!);
      const taken = new Map<string, number>();
      for (const contender of order) {
        const sent = performance.now();
        await contender.send();
        const ms = performance.now() - sent;
        contender.latencies.push(ms);
        taken.set(contender.name, ms);
      }
      for (const a of contenders)
        for (const b of contenders) {
          if (a === b) continue;
          const key = `${b.name} / ${a.name}`;
          ratios.set(key, [...(ratios.get(key) ?? []), taken.get(b.name)! / taken.get(a.name)!]);
        }
    }
    report(contenders, start, ratios);
  } finally {
    for (const child of processes) {
      child.kill("SIGTERM");
      await child.exited;
    }
    await db.close();
  }
});

/** CPU ticks (10 ms) of a process's threads so far, user and system, summed by thread name. */
function threadTicks(pid: number): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8");
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).replace(/\d+$/, "");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    ticks.set(`${name} user`, (ticks.get(`${name} user`) ?? 0) + Number(fields[11]));
    ticks.set(`${name} system`, (ticks.get(`${name} system`) ?? 0) + Number(fields[12]));
  }
  return ticks;
}

interface Usage {
  cpu: number;
  faults: number;
  threads: Map<string, number>;
}

function usage({ pid }: Contender): Usage {
  return { cpu: cpuSeconds(pid), faults: pageFaults(pid), threads: threadTicks(pid) };
}

/** Each server's latency, CPU, faults and RSS per batch, its threads' CPU, and the ratios. */
function report(contenders: Contender[], start: Usage[], ratios: Map<string, number[]>): void {
  console.log(`${rounds} rounds of one ${BATCH}-row batch each, load ${loadAverage()}`);
  const ms = (p: number, values: number[]) => percentile(values, p).toFixed(1);
  for (const [index, contender] of contenders.entries()) {
    const { cpu, faults } = usage(contender);
    const { latencies } = contender;
    console.log(
      `  ${contender.name.padEnd(12)} p50 ${ms(0.5, latencies)} ms, p90 ${ms(0.9, latencies)}, ` +
        `p99 ${ms(0.99, latencies)}, CPU ${(((cpu - start[index]!.cpu) / rounds) * 1000).toFixed(1)} ` +
        `ms and ${Math.round((faults - start[index]!.faults) / rounds)} page faults a batch, RSS ` +
        `${rssMb(contender.pid)} MB`,
    );
  }
  for (const [index, contender] of contenders.entries()) {
    const threads = [...threadTicks(contender.pid)]
      .map(([name, ticks]): [string, number] => [
        name,
        ticks - (start[index]!.threads.get(name) ?? 0),
      ])
      .filter(([, ticks]) => ticks > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([name, ticks]) => `${name} ${((ticks * 10) / rounds).toFixed(2)}`);
    console.log(`  ${contender.name}, CPU ms a batch by thread: ${threads.join(", ")}`);
  }
  for (const [key, values] of ratios)
    if (key.endsWith("/ ours") || key === "platformatic / before")
      console.log(
        `  ${key}: median ${round2(percentile(values, 0.5))} ` +
          `(p25 ${round2(percentile(values, 0.25))}, p75 ${round2(percentile(values, 0.75))})`,
      );
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

function loadAverage(): string {
  return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}
