// A local three-node MariaDB Galera cluster on loopback: each node its own data directory, SQL
// port, replication, IST and SST ports; rsync for state transfers. Used by `bun run cluster` and by
// the cluster test suite (which kills and restarts nodes). Installs galera-4, mariadb-server and
// rsync with apt when they are missing and we are root on Debian.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import mysql from "mysql2/promise";
import { freePort } from "./provision.ts";

const SBIN_PATH = `${process.env.PATH ?? ""}:/usr/sbin:/usr/local/sbin:/sbin`;
const PROVIDERS = [
  "/usr/lib/galera/libgalera_smm.so",
  "/usr/lib/libgalera_smm.so",
  "/usr/lib64/galera-4/libgalera_smm.so",
  "/usr/lib/galera-4/libgalera_smm.so",
];
const CLUSTER_NAME = "erp_local";

export interface NodeInfo {
  name: string;
  dir: string;
  port: number;
  galeraPort: number;
  istPort: number;
  sstPort: number;
  pid?: number;
}

interface ClusterState {
  nodes: NodeInfo[];
}

function say(line: string): void {
  process.stderr.write(`[cluster] ${line}\n`);
}

function which(name: string): string | undefined {
  return Bun.which(name, { PATH: SBIN_PATH }) ?? undefined;
}

const provider = (): string | undefined => PROVIDERS.find((file) => existsSync(file));

/** galera-4, mariadb-server and rsync, installed with apt when missing (root on Debian). */
export function ensureClusterSoftware(): void {
  const missing = [
    ...(provider() ? [] : ["galera-4"]),
    ...(which("mariadbd") && which("mariadb-install-db") ? [] : ["mariadb-server"]),
    ...(which("rsync") ? [] : ["rsync"]),
  ];
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0 || !existsSync("/etc/debian_version")) {
    throw new Error(
      `a local cluster needs ${missing.join(", ")}; install them (Debian: apt-get install ${missing.join(" ")})`,
    );
  }
  say(`installing ${missing.join(", ")} with apt-get…`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const args of [["update"], ["install", "-y", ...missing]]) {
    const result = spawnSync("apt-get", args, { env, stdio: ["ignore", 2, 2] });
    if (result.status !== 0)
      throw new Error(`apt-get ${args.join(" ")} failed (exit ${result.status})`);
  }
}

export class LocalCluster {
  readonly #stateFile: string;
  nodes: NodeInfo[] = [];

  constructor(readonly dir: string) {
    this.#stateFile = path.join(dir, "cluster.json");
    if (existsSync(this.#stateFile))
      this.nodes = (JSON.parse(readFileSync(this.#stateFile, "utf8")) as ClusterState).nodes;
  }

  /** `mysql://root@127.0.0.1:<port>/<database>` of each node. */
  urls(database = ""): string[] {
    return this.nodes.map((node) => `mysql://root@127.0.0.1:${node.port}/${database}`);
  }

  /** Starts every node that is not running: the first bootstraps the cluster when none runs. */
  async start(): Promise<void> {
    ensureClusterSoftware();
    const asRoot = process.getuid?.() === 0;
    if (this.nodes.length === 0) {
      mkdirSync(this.dir, { recursive: true });
      for (let i = 1; i <= 3; i++) {
        this.nodes.push({
          name: `node${i}`,
          dir: path.join(this.dir, `node${i}`),
          port: await freePort(),
          galeraPort: await freePort(),
          istPort: await freePort(),
          sstPort: await freePort(),
        });
      }
      // One after the other: concurrent bootstraps of mariadbd trip over each other.
      for (const node of this.nodes) await initNode(node, asRoot);
      // mariadbd runs as mysql, which must reach its directory through ours.
      if (asRoot) chmodSync(this.dir, 0o755);
    }
    const running = this.nodes.filter((node) => isAlive(node.pid));
    for (const node of this.nodes) {
      if (isAlive(node.pid)) continue;
      await this.startNode(
        node,
        running.length === 0 && node === this.nodes.find((n) => !isAlive(n.pid)),
      );
      running.push(node);
    }
  }

  /** Starts one node (joining the others, or bootstrapping a new cluster) and waits until it is synced. */
  async startNode(node: NodeInfo, bootstrap = false): Promise<void> {
    const server = which("mariadbd") ?? which("mysqld");
    if (!server) throw new Error("mariadbd is not installed");
    const asRoot = process.getuid?.() === 0;
    const peers = this.nodes.map((n) => `127.0.0.1:${n.galeraPort}`).join(",");
    // A node that was the last to stop may need to bootstrap again: mark it safe to do so.
    if (bootstrap) markSafeToBootstrap(node);
    // MariaDB's compiled defaults otherwise (latin1, the system's time zone, REPEATABLE READ): the
    // server's tables and sessions declare what they need, and the cluster suite proves it.
    const args = [
      "--no-defaults",
      `--datadir=${path.join(node.dir, "data")}`,
      `--socket=${path.join(node.dir, "mysqld.sock")}`,
      `--pid-file=${path.join(node.dir, "mysqld.pid")}`,
      `--port=${node.port}`,
      "--bind-address=127.0.0.1",
      `--log-error=${path.join(node.dir, "error.log")}`,
      ...(asRoot ? ["--user=mysql"] : []),
      "--binlog-format=ROW",
      "--default-storage-engine=InnoDB",
      "--innodb-autoinc-lock-mode=2",
      "--innodb-buffer-pool-size=64M",
      "--innodb-log-file-size=48M",
      "--innodb-flush-log-at-trx-commit=2",
      "--wsrep-on=ON",
      `--wsrep-provider=${provider()}`,
      `--wsrep-cluster-name=${CLUSTER_NAME}`,
      `--wsrep-cluster-address=gcomm://${peers}`,
      `--wsrep-node-name=${node.name}`,
      `--wsrep-node-address=127.0.0.1:${node.galeraPort}`,
      `--wsrep-provider-options=${[
        `base_port=${node.galeraPort}`,
        `ist.recv_addr=127.0.0.1:${node.istPort}`,
        "gcache.size=128M",
        "evs.inactive_timeout=PT6S",
        "evs.suspect_timeout=PT3S",
      ].join(";")}`,
      "--wsrep-sst-method=rsync",
      `--wsrep-sst-receive-address=127.0.0.1:${node.sstPort}`,
      "--wsrep-slave-threads=2",
      ...(bootstrap ? ["--wsrep-new-cluster"] : []),
    ];
    const child = spawn(server, args, { stdio: "ignore", detached: true });
    child.unref();
    node.pid = child.pid;
    this.#save();
    await waitSynced(node, () => isAlive(node.pid));
    say(
      `${node.name} synced on 127.0.0.1:${node.port}${bootstrap ? " (bootstrapped the cluster)" : ""}`,
    );
  }

  /** SIGTERM (a clean stop) or SIGKILL (a crash) of one node; waits until its process is gone. */
  async stopNode(node: NodeInfo, signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): Promise<void> {
    if (!isAlive(node.pid)) return;
    process.kill(node.pid!, signal);
    const deadline = Date.now() + 60_000;
    while (isAlive(node.pid) && Date.now() < deadline) await Bun.sleep(100);
    if (isAlive(node.pid)) process.kill(node.pid!, "SIGKILL");
    node.pid = undefined;
    this.#save();
  }

  /** Stops the nodes one after the other (the last one stopped is safe to bootstrap from). */
  async stop(): Promise<void> {
    for (const node of [...this.nodes].reverse()) await this.stopNode(node);
  }

  /** Stops the cluster and deletes its data. */
  async destroy(): Promise<void> {
    for (const node of this.nodes) await this.stopNode(node, "SIGKILL");
    rmSync(this.dir, { recursive: true, force: true });
    this.nodes = [];
  }

  async status(): Promise<
    { name: string; url: string; running: boolean; state?: string; clusterSize?: number }[]
  > {
    return Promise.all(
      this.nodes.map(async (node) => {
        const url = `mysql://root@127.0.0.1:${node.port}/`;
        if (!isAlive(node.pid)) return { name: node.name, url, running: false };
        const status = await wsrepStatus(node).catch(() => undefined);
        return {
          name: node.name,
          url,
          running: true,
          state: status?.state,
          clusterSize: status?.size,
        };
      }),
    );
  }

  #save(): void {
    writeFileSync(
      this.#stateFile,
      `${JSON.stringify({ nodes: this.nodes } satisfies ClusterState, null, 2)}\n`,
    );
  }
}

function initNode(node: NodeInfo, asRoot: boolean): Promise<void> {
  const installDb = which("mariadb-install-db") ?? which("mysql_install_db");
  if (!installDb) throw new Error("mariadb-install-db is not installed");
  mkdirSync(node.dir, { recursive: true });
  if (asRoot) spawnSync("chown", ["-R", "mysql:mysql", node.dir]);
  return new Promise((resolve, reject) => {
    const child = spawn(
      installDb,
      [
        "--no-defaults",
        `--datadir=${path.join(node.dir, "data")}`,
        "--auth-root-authentication-method=normal",
        "--skip-test-db",
        ...(asRoot ? ["--user=mysql"] : []),
      ],
      { stdio: "ignore" },
    );
    child.once("exit", (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`mariadb-install-db for ${node.name} failed (exit ${code})`)),
    );
  });
}

function markSafeToBootstrap(node: NodeInfo): void {
  const file = path.join(node.dir, "data", "grastate.dat");
  if (!existsSync(file)) return;
  writeFileSync(
    file,
    readFileSync(file, "utf8").replace(/safe_to_bootstrap:\s*0/, "safe_to_bootstrap: 1"),
  );
}

function isAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    // A zombie (exited, not yet reaped) still answers signal 0; /proc says what it is.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/\) Z /.test(stat);
  } catch {
    return false;
  }
}

async function wsrepStatus(
  node: NodeInfo,
): Promise<{ state: string; size: number; ready: boolean }> {
  const connection = await mysql.createConnection({
    host: "127.0.0.1",
    port: node.port,
    user: "root",
    connectTimeout: 2_000,
  });
  try {
    const [rows] = await connection.query(
      "SHOW STATUS WHERE Variable_name IN ('wsrep_local_state_comment', 'wsrep_cluster_size', 'wsrep_ready')",
    );
    const values = Object.fromEntries(
      (rows as { Variable_name: string; Value: string }[]).map((row) => [
        row.Variable_name,
        row.Value,
      ]),
    );
    return {
      state: values.wsrep_local_state_comment ?? "",
      size: Number(values.wsrep_cluster_size ?? 0),
      ready: values.wsrep_ready === "ON",
    };
  } finally {
    await connection.end();
  }
}

async function waitSynced(node: NodeInfo, alive: () => boolean): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (!alive())
      throw new Error(
        `${node.name} exited while starting; see ${path.join(node.dir, "error.log")}:\n${logTail(node)}`,
      );
    const status = await wsrepStatus(node).catch(() => undefined);
    if (status?.ready && status.state === "Synced") return;
    await Bun.sleep(250);
  }
  throw new Error(
    `${node.name} was not synced within 120 s; see ${path.join(node.dir, "error.log")}:\n${logTail(node)}`,
  );
}

function logTail(node: NodeInfo): string {
  const file = path.join(node.dir, "error.log");
  return existsSync(file)
    ? readFileSync(file, "utf8").split("\n").slice(-20).join("\n")
    : "(no log)";
}
