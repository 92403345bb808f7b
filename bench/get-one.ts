// GET one side by side, with each process's CPU per answered request: servers of ours (this
// checkout's, and others given as NAME=PATH to a checkout's server/src/main.ts) and the raw server
// on one throw-away database, taking turns under the bench's load (autocannon, 32 connections,
// random seeded workers), rounds alternating in order. Per round: requests/s, and from
// /proc/<pid>/stat the CPU of the server, of MariaDB (every client of it counts, other work on a
// shared database included) and of this process (the load generator) per request, and the server's
// page faults per request. Prints each round and the medians (bench/README.md, "GET one's CPU,
// layer by layer", and "Memory given back and taken again"). With --list the request is the bench's
// list instead (`GET /v1/workers?limit=50&offset=100`, with its total).
// `bun bench/get-one.ts [--list] [--rounds N] [--seconds S] [--warmup S] [NAME=PATH ...] [--env NAME:KEY=VALUE ...]`
import autocannon from "autocannon";
import { readFileSync } from "node:fs";
import { connectDatabase, createCompany } from "@erp/server/admin";
import { cpuSeconds, pageFaults } from "./process-cpu.ts";
import { seedWorkers } from "./seed.ts";
import { type SpawnedServer, spawnServer } from "./spawn-server.ts";
import { withThrowAwayDatabase } from "./throw-away-database.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const ROUNDS = option("--rounds", 6);
const SECONDS = option("--seconds", 4);
const WARMUP = option("--warmup", 3);
const CONNECTIONS = 32;
const LIST = args.includes("--list");

const servers: { name: string; script: string; env: Record<string, string> }[] = [
  { name: "api", script: "server/src/main.ts", env: {} },
  { name: "raw", script: "bench/raw-server.ts", env: {} },
];
for (let i = 0; i < args.length; i++) {
  const arg = args[i]!;
  if (arg === "--rounds" || arg === "--seconds" || arg === "--warmup") i++;
  else if (arg === "--list") continue;
  else if (arg === "--env") {
    const [name, pair] = args[++i]!.split(/:(.*)/s);
    const [key, value] = pair!.split(/=(.*)/s);
    const server = servers.find((one) => one.name === name);
    if (!server) throw new Error(`no server ${name}`);
    server.env[key!] = value!;
  } else {
    const [name, script] = arg.split(/=(.*)/s);
    servers.push({ name: name!, script: script!, env: {} });
  }
}

/** utime + stime of a process, ms. */
const cpuMs = (pid: number): number => cpuSeconds(pid) * 1000;

function mariadbPid(): number | undefined {
  const found = Bun.spawnSync(["pgrep", "-o", "mariadbd|mysqld"]).stdout.toString().trim();
  return found ? Number(found) : undefined;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2
    ? sorted[Math.floor(middle)]!
    : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const rateText = (rps: number): string => `${String(Math.round(rps)).padStart(6)} req/s`;

/** A server's rounds: requests/s; CPU µs of each process and the server's page faults, per request. */
interface Row {
  rps: number[];
  server: number[];
  db: number[];
  gen: number[];
  faults: number[];
}

/** CPU µs and page faults per request of one round (`at`), or the rounds' medians. */
function perRequest(row: Row, at?: number): string {
  const pick = (values: number[], digits = 1) =>
    (at === undefined ? median(values) : values.at(at)!).toFixed(digits);
  return (
    `server ${pick(row.server)} µs  db ${pick(row.db)} µs  generator ${pick(row.gen)} µs  ` +
    `server page faults ${pick(row.faults, 2)}`
  );
}

const loadAverage = (): string =>
  readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

await withThrowAwayDatabase("erp_get_one", async (url) => {
  const db = connectDatabase(url, { connectionLimit: 2 });
  const company = await createCompany(db.db, {
    name: "Bench Co",
    plan: "enterprise",
    addons: ["api"],
  });
  const ids = await seedWorkers(db, company.company_id, 2_000);
  const started: (SpawnedServer & { name: string })[] = [];
  try {
    for (const server of servers)
      started.push({
        name: server.name,
        ...(await spawnServer(server.script, url, { env: server.env })),
      });
    const requests = [
      {
        method: "GET",
        headers: { authorization: `Bearer ${company.token}`, "content-type": "application/json" },
        setupRequest: (req: autocannon.Request) => ({
          ...req,
          path: LIST
            ? "/v1/workers?limit=50&offset=100"
            : `/v1/workers/${ids[Math.floor(Math.random() * ids.length)]}`,
        }),
      },
    ] as autocannon.Request[];
    const run = (baseUrl: string, duration: number) =>
      autocannon({ url: baseUrl, connections: CONNECTIONS, duration, requests });
    for (const server of started) await run(server.baseUrl, WARMUP);
    const database = mariadbPid();
    const rows: Record<string, Row> = {};
    for (const server of started)
      rows[server.name] = { rps: [], server: [], db: [], gen: [], faults: [] };
    console.log(`load average before: ${loadAverage()}`);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? started : [...started].reverse();
      for (const server of order) {
        const pid = server.process.pid;
        const spent = () => ({
          server: cpuMs(pid),
          db: database ? cpuMs(database) : 0,
          gen: cpuMs(process.pid),
          faults: pageFaults(pid),
        });
        const before = spent();
        const result = await run(server.baseUrl, SECONDS);
        const after = spent();
        const ok = result.statusCodeStats?.["200"]?.count ?? 0;
        const answered = Math.max(1, ok);
        const row = rows[server.name]!;
        row.rps.push(Math.round(ok / SECONDS));
        row.server.push(((after.server - before.server) * 1000) / answered);
        row.db.push(((after.db - before.db) * 1000) / answered);
        row.gen.push(((after.gen - before.gen) * 1000) / answered);
        row.faults.push((after.faults - before.faults) / answered);
        const other = Object.entries(result.statusCodeStats ?? {}).filter(
          ([code]) => code !== "200",
        );
        console.log(
          `round ${round} ${server.name.padEnd(6)} ${rateText(ok / SECONDS)}  ${perRequest(row, -1)}` +
            `${other.length ? `  other: ${JSON.stringify(other)}` : ""}  load ${loadAverage()}`,
        );
      }
    }
    const raw = median(rows.raw!.rps);
    console.log("\nmedians:");
    for (const [name, row] of Object.entries(rows)) {
      const rounds = row.rps.map((rps) => (rps / raw).toFixed(2)).join(" ");
      console.log(
        `${name.padEnd(6)} ${rateText(median(row.rps))} (${(median(row.rps) / raw).toFixed(2)} of raw;` +
          ` rounds ${rounds})  ${perRequest(row)}`,
      );
    }
    console.log(`load average after: ${loadAverage()}`);
  } finally {
    for (const server of started) server.process.kill();
    await db.close();
  }
});
