// The peers leg of `bun run bench --peers` (alone: `bun bench/peers.ts [--quick]` on a throw-away
// database): our server beside Platformatic DB, a peer users compare us with, serving a table of the
// workers' shape. Platformatic DB and the Node >= 22 it needs are installed from npm into
// .data/peers/ (git-ignored; or BENCH_PEERS_DIR) on first use; nothing of theirs is in the repository.
//
// The peer's table, `peer_workers`, is `workers` (same columns and indexes) with `PRIMARY KEY(id)`
// instead of `(company_id, id)`: Platformatic's POST fails on a composite key. It starts with a copy
// of the company's seeded workers. For each request it alternates the two servers for several rounds
// (autocannon, 32 connections, as bench/run.ts) and reports req/s, p50/p99, statements per request
// and our ratio to the peer. The requests, ours / the peer's:
// - GET one: `GET /v1/workers/:id` / `GET /peerWorkers/:id`, a random seeded record;
// - list of 50 + total: `?limit=50&offset=100` / `?limit=50&offset=100&totalCount=true` of the
//   company's records in id order;
// - create: `POST /v1/workers` / `POST /peerWorkers`;
// - update: `PATCH /v1/workers/:id` (no If-Match) / `PUT /peerWorkers/:id` (it has no PATCH; its
//   PUT wants the table's required columns), a random seeded record, a new phone;
// - bulk: 20,000 rows as 40 batches of 500, one request at a time: `POST /v1/workers/batch` / its
//   GraphQL `insertPeerWorkers` mutation (its only way to write many rows in one request).
import autocannon from "autocannon";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Subprocess } from "bun";
import { connectDatabase, createCompany, type DatabaseHandle } from "@erp/server/admin";
import { seedWorkers } from "./seed.ts";
import { spawnServer } from "./spawn-server.ts";
import { onOwnDatabase, withThrowAwayDatabase } from "./throw-away-database.ts";

const ROOT = path.resolve(import.meta.dir, "..");
/** Where the peers are installed: git-ignored; BENCH_PEERS_DIR lets worktrees share one install. */
const PEERS_DIR = process.env.BENCH_PEERS_DIR || path.join(ROOT, ".data/peers");
/** Pinned: the figures of bench/README.md are of these versions. Node: Platformatic wants >= 22.19. */
const PACKAGES = { node: "22.23.3", "@platformatic/db": "3.67.0" } as const;
const PEER_TABLE = "peer_workers";
const CONNECTIONS = 32;
const BATCH = 500;

/** Why `--peers` cannot run here, as a sentence for the person who asked for it. */
export class PeersUnavailable extends Error {}

export interface PeerSide {
  /** Requests/s (rows/s for the bulk insert): the median of the rounds. */
  rps: number;
  rounds: number[];
  p50_ms: number;
  p99_ms: number;
  statements: number;
  errors: number;
}

export interface PeerLine {
  scenario: string;
  unit: "req/s" | "rows/s";
  ours: PeerSide;
  platformatic: PeerSide;
  /** Ours over the peer's, of the medians; and per round. */
  ratio: number;
  round_ratios: number[];
}

export interface PeersResult {
  platformatic: string;
  node: string;
  rounds: number;
  seconds: number;
  bulk: { rows: number; batch: number };
  lines: PeerLine[];
}

const round2 = (value: number): number => Math.round(value * 100) / 100;
const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

function installedVersion(pkg: string): string | undefined {
  const file = path.join(PEERS_DIR, "node_modules", pkg, "package.json");
  return existsSync(file)
    ? (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version
    : undefined;
}

function nodeVersion(binary: string): string | undefined {
  if (!existsSync(binary)) return undefined;
  const run = Bun.spawnSync([binary, "--version"], { stdout: "pipe", stderr: "pipe" });
  return run.exitCode === 0 ? run.stdout.toString().trim() : undefined;
}

/**
 * Installs Platformatic DB and Node 22 into .data/peers/ unless the pinned versions are there;
 * answers the Node binary to run it with. Throws PeersUnavailable with the reason.
 */
export async function installPeers(): Promise<string> {
  const binary = path.join(PEERS_DIR, "node_modules/.bin/node");
  const ready = () =>
    installedVersion("@platformatic/db") === PACKAGES["@platformatic/db"] &&
    nodeVersion(binary) === `v${PACKAGES.node}`;
  if (ready()) return binary;
  const npm = Bun.which("npm");
  if (!npm)
    throw new PeersUnavailable(
      "--peers installs Platformatic DB and Node 22 with npm, and npm is not on the PATH: " +
        "install Node.js (with npm) first.",
    );
  mkdirSync(PEERS_DIR, { recursive: true });
  // npm 11 runs a dependency's install scripts only when allowed; Node's package fetches its binary in one.
  writeFileSync(
    path.join(PEERS_DIR, "package.json"),
    `${JSON.stringify(
      {
        name: "erp-bench-peers",
        private: true,
        dependencies: PACKAGES,
        allowScripts: { node: true },
      },
      null,
      2,
    )}\n`,
  );
  process.stderr.write(
    `peers: npm install ${Object.entries(PACKAGES)
      .map(([n, v]) => `${n}@${v}`)
      .join(" ")} into ${PEERS_DIR}\n`,
  );
  const child = Bun.spawn([npm, "install", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: PEERS_DIR,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => child.kill(), 600_000);
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  if (code !== 0 || !ready()) {
    const tail = `${out}\n${err}`.trim().split("\n").slice(-8).join("\n");
    const answered = code === 0 ? `, its node answered ${nodeVersion(binary) ?? "nothing"}` : "";
    throw new PeersUnavailable(
      `--peers could not install Platformatic DB ${PACKAGES["@platformatic/db"]} and Node ${PACKAGES.node} ` +
        `from npm into ${PEERS_DIR} (npm exit ${code}${answered}):\n${tail}`,
    );
  }
  return binary;
}

/** The leg's company in our server: its token and seeded worker ids (the peer's table copies them). */
interface PeersTenant {
  companyId: number;
  token: string;
  workerIds: number[];
}

interface Side {
  name: "ours" | "platformatic";
  baseUrl: string;
}

interface Scenario {
  name: string;
  expected: Record<Side["name"], number[]>;
  requests: Record<Side["name"], () => autocannon.Request[]>;
}

let serial = 0;
const unique = (): string => `${process.pid}-${Date.now()}-${serial++}`;

function scenarios(tenant: PeersTenant): Scenario[] {
  const ours = (extra: Record<string, string> = {}) => ({
    authorization: `Bearer ${tenant.token}`,
    "content-type": "application/json",
    ...extra,
  });
  const plain = { "content-type": "application/json" };
  const company = String(tenant.companyId);
  const random = () => tenant.workerIds[Math.floor(Math.random() * tenant.workerIds.length)]!;
  return [
    {
      name: "GET one",
      expected: { ours: [200], platformatic: [200] },
      requests: {
        ours: () => [
          {
            method: "GET",
            headers: ours(),
            setupRequest: (r) => ({ ...r, path: `/v1/workers/${random()}` }),
          },
        ],
        platformatic: () => [
          { method: "GET", setupRequest: (r) => ({ ...r, path: `/peerWorkers/${random()}` }) },
        ],
      },
    },
    {
      name: "list of 50 + total",
      expected: { ours: [200], platformatic: [200] },
      requests: {
        ours: () => [{ method: "GET", path: "/v1/workers?limit=50&offset=100", headers: ours() }],
        platformatic: () => [
          {
            method: "GET",
            path: `/peerWorkers/?where.companyId.eq=${company}&orderby.id=asc&limit=50&offset=100&totalCount=true`,
          },
        ],
      },
    },
    {
      name: "create",
      expected: { ours: [201], platformatic: [200] },
      requests: {
        ours: () => [
          {
            method: "POST",
            path: "/v1/workers",
            headers: ours(),
            setupRequest: (r) => ({
              ...r,
              body: JSON.stringify({ name: `Bench ${unique()}`, email: "bench@example.com" }),
            }),
          },
        ],
        platformatic: () => [
          {
            method: "POST",
            path: "/peerWorkers/",
            headers: plain,
            setupRequest: (r) => ({
              ...r,
              body: JSON.stringify({
                companyId: company,
                name: `Bench ${unique()}`,
                email: "bench@example.com",
                status: "ACTIVE",
              }),
            }),
          },
        ],
      },
    },
    {
      name: "update (a random record)",
      expected: { ours: [200], platformatic: [200] },
      requests: {
        ours: () => [
          {
            method: "PATCH",
            headers: ours(),
            setupRequest: (r) => ({
              ...r,
              path: `/v1/workers/${random()}`,
              body: JSON.stringify({ phone: `+1 555 ${unique().slice(-8)}` }),
            }),
          },
        ],
        platformatic: () => [
          {
            method: "PUT",
            headers: plain,
            setupRequest: (r) => {
              const id = random();
              return {
                ...r,
                path: `/peerWorkers/${id}`,
                body: JSON.stringify({
                  companyId: company,
                  name: `Seeded worker ${id}`,
                  status: "ACTIVE",
                  phone: `+1 555 ${unique().slice(-8)}`,
                }),
              };
            },
          },
        ],
      },
    },
  ];
}

async function questions(db: DatabaseHandle): Promise<number> {
  const [rows] = await db.pool.query("SHOW GLOBAL STATUS LIKE 'Questions'");
  return Number((rows as { Value: string }[])[0]!.Value);
}

/** Waits until the writes a server finishes after autocannon stopped are done (bench/run.ts). */
async function settle(db: DatabaseHandle): Promise<void> {
  const writes = async () => {
    const [rows] = await db.pool.query(
      "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_insert', 'Com_update', 'Com_delete', 'Com_commit')",
    );
    return (rows as { Value: string }[]).reduce((sum, row) => sum + Number(row.Value), 0);
  };
  for (let last = await writes(); ; ) {
    await Bun.sleep(50);
    const now = await writes();
    if (now === last) return;
    last = now;
  }
}

interface Window {
  rps: number;
  p50: number;
  p99: number;
  statements: number;
  errors: number;
}

async function load(
  db: DatabaseHandle,
  side: Side,
  requests: autocannon.Request[],
  expected: number[],
  seconds: number,
): Promise<Window> {
  const before = await questions(db);
  const result = await autocannon({
    url: side.baseUrl,
    connections: CONNECTIONS,
    duration: seconds,
    requests,
  });
  const after = await questions(db);
  await settle(db);
  const stats = Object.entries(result.statusCodeStats ?? {}) as [string, { count: number }][];
  const answered = stats.reduce((sum, [, stat]) => sum + stat.count, 0);
  const good = stats
    .filter(([code]) => expected.includes(Number(code)))
    .reduce((sum, [, stat]) => sum + stat.count, 0);
  return {
    rps: Math.round(good / seconds),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: answered - good + result.errors + result.timeouts,
    // One statement of ours (SHOW STATUS) falls inside each window.
    statements: round2((after - before - 1) / Math.max(1, answered)),
  };
}

/** `rows` rows as batches of 500, one request at a time: rows/s and each batch's latency. */
async function bulk(
  db: DatabaseHandle,
  side: Side,
  tenant: PeersTenant,
  rows: number,
): Promise<Window> {
  const bodies: string[] = [];
  for (let first = 0; first < rows; first += BATCH) {
    const items = Array.from({ length: Math.min(BATCH, rows - first) }, (_, i) => ({
      name: `Bulk ${unique()} ${first + i}`,
      email: `bulk${first + i}@example.com`,
      phone: `+1 555 ${String(first + i).padStart(5, "0")}`,
    }));
    bodies.push(
      side.name === "ours"
        ? JSON.stringify({ items })
        : JSON.stringify({
            query:
              "mutation($inputs: [PeerWorkerInput]!) { insertPeerWorkers(inputs: $inputs) { id } }",
            variables: {
              inputs: items.map((item) => ({
                ...item,
                companyId: String(tenant.companyId),
                status: "ACTIVE",
              })),
            },
          }),
    );
  }
  const url = side.name === "ours" ? `${side.baseUrl}/v1/workers/batch` : `${side.baseUrl}/graphql`;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (side.name === "ours") headers.authorization = `Bearer ${tenant.token}`;
  const latencies: number[] = [];
  let errors = 0;
  const before = await questions(db);
  const started = performance.now();
  for (const body of bodies) {
    const sent = performance.now();
    const response = await fetch(url, { method: "POST", headers, body });
    const answer = (await response.json()) as {
      data?: { failed?: number; insertPeerWorkers?: unknown[] } | null;
      errors?: unknown[];
    };
    latencies.push(performance.now() - sent);
    const written =
      side.name === "ours"
        ? response.status === 200 && answer.data?.failed === 0
        : response.status === 200 &&
          !answer.errors &&
          answer.data?.insertPeerWorkers?.length === BATCH;
    if (!written) errors++;
  }
  const seconds = (performance.now() - started) / 1000;
  const after = await questions(db);
  await settle(db);
  return {
    rps: Math.round(rows / seconds),
    p50: Math.round(percentile(latencies, 0.5)),
    p99: Math.round(percentile(latencies, 0.99)),
    errors,
    statements: round2((after - before - 1) / bodies.length),
  };
}

const rates = (windows: Record<Side["name"], Window[]>): string =>
  `ours ${windows.ours.map((w) => w.rps).join("/")}, platformatic ${windows.platformatic.map((w) => w.rps).join("/")}`;

function side(windows: Window[]): PeerSide {
  return {
    rps: median(windows.map((w) => w.rps)),
    rounds: windows.map((w) => w.rps),
    p50_ms: median(windows.map((w) => w.p50)),
    p99_ms: median(windows.map((w) => w.p99)),
    statements: median(windows.map((w) => w.statements)),
    errors: windows.reduce((sum, w) => sum + w.errors, 0),
  };
}

function line(name: string, unit: PeerLine["unit"], ours: Window[], peer: Window[]): PeerLine {
  const a = side(ours);
  const b = side(peer);
  return {
    scenario: name,
    unit,
    ours: a,
    platformatic: b,
    ratio: round2(a.rps / Math.max(1, b.rps)),
    round_ratios: ours.map((w, i) => round2(w.rps / Math.max(1, peer[i]!.rps))),
  };
}

/**
 * Seeds a company of its own in our server and the same rows into the peer's table, in
 * `databaseUrl`'s database (a company of its own, so that both hold the same rows whatever ran
 * before: an earlier leg's creates would otherwise be copied in, and the peer counts its total),
 * starts Platformatic DB on it (Node from installPeers), and measures it beside our server at
 * `oursBaseUrl`, in alternating rounds.
 */
async function peersLeg(
  db: DatabaseHandle,
  databaseUrl: string,
  oursBaseUrl: string,
  node: string,
  quick: boolean,
): Promise<PeersResult> {
  const rounds = quick ? 1 : 3;
  const seconds = quick ? 1 : 4;
  const warmup = quick ? 1 : 3;
  const bulkRows = quick ? 2 * BATCH : 40 * BATCH;
  await db.pool.query(`DROP TABLE IF EXISTS ${PEER_TABLE}`);
  await db.pool.query(`CREATE TABLE ${PEER_TABLE} LIKE workers`);
  await db.pool.query(`ALTER TABLE ${PEER_TABLE} DROP PRIMARY KEY, ADD PRIMARY KEY (id)`);
  const company = await createCompany(db.db, {
    name: "Peers Co",
    plan: "enterprise",
    addons: ["api"],
  });
  const tenant: PeersTenant = {
    companyId: company.company_id,
    token: company.token,
    workerIds: await seedWorkers(db, company.company_id, quick ? 200 : 2_000),
  };
  await db.pool.query(`INSERT INTO ${PEER_TABLE} SELECT * FROM workers WHERE company_id = ?`, [
    tenant.companyId,
  ]);
  let peer: { baseUrl: string; process: Subprocess };
  try {
    peer = await spawnServer("bench/platformatic-server.mjs", databaseUrl, {
      runtime: node,
      env: { PEERS_DIR, PEERS_TABLE: PEER_TABLE },
    });
  } catch (error) {
    throw new PeersUnavailable(
      `--peers could not start Platformatic DB with ${node}: ${(error as Error).message}`,
    );
  }
  try {
    const sides: Side[] = [
      { name: "ours", baseUrl: oursBaseUrl },
      { name: "platformatic", baseUrl: peer.baseUrl },
    ];
    const lines: PeerLine[] = [];
    for (const scenario of scenarios(tenant)) {
      for (const s of sides) {
        await autocannon({
          url: s.baseUrl,
          connections: CONNECTIONS,
          duration: warmup,
          requests: scenario.requests[s.name](),
        });
        await settle(db);
      }
      const windows: Record<Side["name"], Window[]> = { ours: [], platformatic: [] };
      for (let r = 0; r < rounds; r++)
        for (const s of r % 2 === 0 ? sides : [...sides].reverse())
          windows[s.name].push(
            await load(db, s, scenario.requests[s.name](), scenario.expected[s.name], seconds),
          );
      lines.push(line(scenario.name, "req/s", windows.ours, windows.platformatic));
      process.stderr.write(`peers ${scenario.name}: ${rates(windows)}\n`);
    }
    const name = `bulk, ${(bulkRows / BATCH).toLocaleString("en")} x ${BATCH} rows`;
    // One warm-up batch each (their code compiled), then the rounds.
    for (const s of sides) await bulk(db, s, tenant, BATCH);
    const windows: Record<Side["name"], Window[]> = { ours: [], platformatic: [] };
    for (let r = 0; r < rounds; r++)
      for (const s of r % 2 === 0 ? sides : [...sides].reverse())
        windows[s.name].push(await bulk(db, s, tenant, bulkRows));
    lines.push(line(name, "rows/s", windows.ours, windows.platformatic));
    process.stderr.write(`peers ${name}: ${rates(windows)} rows/s\n`);
    return {
      platformatic: PACKAGES["@platformatic/db"],
      node: nodeVersion(node) ?? "?",
      rounds,
      seconds,
      bulk: { rows: bulkRows, batch: BATCH },
      lines,
    };
  } finally {
    peer.process.kill("SIGTERM");
    await peer.process.exited;
  }
}

export function describePeers(result: PeersResult): string {
  const rows = [
    [
      "peers: request",
      "ours",
      "Platformatic",
      "ours/Platformatic",
      "per round",
      "ours p50/p99 ms",
      "Platformatic p50/p99 ms",
      "statements ours/Platformatic",
      "errors",
    ],
    ...result.lines.map((l) => [
      l.scenario,
      `${l.ours.rps} ${l.unit}`,
      `${l.platformatic.rps} ${l.unit}`,
      String(l.ratio),
      l.round_ratios.join(", "),
      `${l.ours.p50_ms}/${l.ours.p99_ms}`,
      `${l.platformatic.p50_ms}/${l.platformatic.p99_ms}`,
      `${l.ours.statements}/${l.platformatic.statements}`,
      String(l.ours.errors + l.platformatic.errors),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const format = (cells: string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(" | ")} |`;
  return [
    `Peers: Platformatic DB ${result.platformatic} on Node ${result.node} ` +
      "(bulk: statements per batch, p50/p99 per batch)",
    format(rows[0]!),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...rows.slice(1).map(format),
  ].join("\n");
}

/**
 * The leg on a database of its own, on the database server at `databaseServerUrl`, with a server of
 * ours started for it (`bun run bench --peers`): both tables then start with the same seeded rows.
 * On the bench's own database, leg 1's creates leave some 600,000 workers, whose 19 indexes no
 * longer fit MariaDB's default buffer pool, while the peer's table starts with 2,000: every insert
 * of ours (creates, the bulk batches) paid for a table the peer did not have.
 */
export async function peersOnOwnDatabase(
  databaseServerUrl: string,
  node: string,
  quick: boolean,
): Promise<PeersResult> {
  return onOwnDatabase(databaseServerUrl, "erp_bench_peers", (url) =>
    peersBesideOurServer(url, node, quick),
  );
}

/** Our server started on `url`, then the leg beside it. */
async function peersBesideOurServer(
  url: string,
  node: string,
  quick: boolean,
): Promise<PeersResult> {
  const db = connectDatabase(url, { connectionLimit: 2 });
  let ours: Subprocess | undefined;
  try {
    const api = await spawnServer("server/src/main.ts", url);
    ours = api.process;
    return await peersLeg(db, url, api.baseUrl, node, quick);
  } finally {
    ours?.kill("SIGTERM");
    await ours?.exited;
    await db.close();
  }
}

// Alone: a throw-away database, our server and the peer.
if (import.meta.main) {
  const quick = process.argv.includes("--quick");
  let node: string;
  try {
    node = await installPeers();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
  await withThrowAwayDatabase("erp_bench_peers", async (url) => {
    try {
      const result = await peersBesideOurServer(url, node, quick);
      console.log(`\n${describePeers(result)}\n`);
      await Bun.write(
        path.join(ROOT, "bench/peers-results.json"),
        `${JSON.stringify(result, null, 2)}\n`,
      );
      console.log("written: bench/peers-results.json");
    } catch (error) {
      if (!(error instanceof PeersUnavailable)) throw error;
      console.error(error.message);
      process.exitCode = 1;
    }
  });
}
