// Finds (or starts) the MySQL/MariaDB server that `bun run start` and `bun run test` use.
//
// Discovery order: an explicit URL; root without password on 127.0.0.1:3306; root via the
// system unix socket (fresh Debian MariaDB), which we use to create a TCP user; else a
// private mariadbd with its data under .data/ (installing mariadb-server with apt if needed).
// ERP_DB_FORCE_PRIVATE=1 skips the two local-server probes, to exercise the private path.
import { createConnection, escapeId, type Connection } from "mysql2/promise";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";

export interface DatabaseServer {
  url: string;
  reason: string;
  stop(): Promise<void>;
}

const ROOT = path.resolve(import.meta.dir, "../..");
const DATA = path.join(ROOT, ".data");
const DATADIR = path.join(DATA, "mariadb");
const SOCKET = path.join(DATA, "mariadb.sock");
const PIDFILE = path.join(DATA, "mariadb.pid");
const ERRLOG = path.join(DATA, "mariadb.err");
const SYSTEM_SOCKETS = ["/run/mysqld/mysqld.sock", "/var/run/mysqld/mysqld.sock"];
// A local-only convenience account; the server it lives on already trusts local root.
const LOCAL_USER = "erp_local";
const LOCAL_PASSWORD = "erp_local_pw";
const SBIN_PATH = `${process.env.PATH ?? ""}:/usr/sbin:/usr/local/sbin:/usr/local/mysql/bin`;

type Target =
  | { host: string; port: number; user: string; password?: string }
  | { socketPath: string; user: string };

/** Connects, runs `fn`, always disconnects. */
async function withConnection<T>(
  target: Target | string,
  fn: (c: Connection) => Promise<T>,
): Promise<T> {
  const c =
    typeof target === "string"
      ? await createConnection(target)
      : await createConnection({ ...target, connectTimeout: 3000 });
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => c.destroy());
  }
}

/** Null when the server answers and lets us in, else a short reason why not. */
async function probe(target: Target): Promise<string | null> {
  try {
    await withConnection(target, (c) => c.query("SELECT 1"));
    return null;
  } catch (e) {
    const code = (e as { code?: string }).code ?? "";
    if (code === "ER_ACCESS_DENIED_ERROR") return "root needs a password there";
    if (code === "ECONNREFUSED" || code === "ENOENT" || code === "ETIMEDOUT")
      return "nothing answered";
    return `${code || "error"}: ${(e as Error).message}`;
  }
}

async function flavour(target: Target): Promise<string> {
  const [rows] = await withConnection(target, (c) => c.query("SELECT VERSION() AS v"));
  return String((rows as { v: string }[])[0]?.v).includes("MariaDB") ? "MariaDB" : "MySQL";
}

/** Creates (or re-passwords) erp_local with full rights, via a root connection on a unix socket. */
async function ensureLocalUser(socketPath: string): Promise<number> {
  return withConnection({ socketPath, user: "root" }, async (c) => {
    for (const host of ["localhost", "127.0.0.1"]) {
      const account = `${c.escape(LOCAL_USER)}@${c.escape(host)}`;
      await c.query(
        `CREATE USER IF NOT EXISTS ${account} IDENTIFIED BY ${c.escape(LOCAL_PASSWORD)}`,
      );
      await c.query(`ALTER USER ${account} IDENTIFIED BY ${c.escape(LOCAL_PASSWORD)}`);
      await c.query(`GRANT ALL PRIVILEGES ON *.* TO ${account} WITH GRANT OPTION`);
    }
    const [rows] = await c.query("SELECT @@port AS port");
    return Number((rows as { port: number }[])[0]?.port ?? 3306);
  });
}

function urlFor(t: { host: string; port: number; user: string; password?: string }): string {
  const auth = t.password
    ? `${encodeURIComponent(t.user)}:${encodeURIComponent(t.password)}`
    : encodeURIComponent(t.user);
  return `mysql://${auth}@${t.host}:${t.port}`;
}

function say(line: string): void {
  process.stderr.write(`[db] ${line}\n`);
}

const noop = async () => {};

export async function provisionDatabaseServer(opts: {
  envUrl?: string;
  /** Name of the variable envUrl came from, for the log line. */
  envName?: string;
}): Promise<DatabaseServer> {
  const envName = opts.envName ?? "DATABASE_URL";
  if (opts.envUrl) {
    const u = new URL(opts.envUrl);
    if (u.protocol !== "mysql:" && u.protocol !== "mariadb:")
      throw new Error(`${envName} must be a mysql:// URL, got ${u.protocol}//…`);
    const auth = u.username ? `${u.username}${u.password ? `:${u.password}` : ""}@` : "";
    const url = `mysql://${auth}${u.host}${u.search}`;
    const reason = `${envName} is set`;
    say(
      `using the server at ${u.host} (user ${decodeURIComponent(u.username) || "(none)"}): ${reason}`,
    );
    return { url, reason, stop: noop };
  }
  return discoverLocal(`no ${envName} set`, true);
}

async function discoverLocal(why: string, mayInstall: boolean): Promise<DatabaseServer> {
  const reasons: string[] = [why];
  if (process.env.ERP_DB_FORCE_PRIVATE === "1") {
    reasons.push("ERP_DB_FORCE_PRIVATE=1");
  } else {
    const tcpRoot = { host: "127.0.0.1", port: 3306, user: "root" };
    const tcpFailure = await probe(tcpRoot);
    if (tcpFailure === null) {
      const reason = why;
      say(`using ${await flavour(tcpRoot)} at 127.0.0.1:3306 (root, no password): ${reason}`);
      return { url: urlFor(tcpRoot), reason, stop: noop };
    }
    reasons.push(`${tcpFailure} on 127.0.0.1:3306 as root`);

    for (const socketPath of SYSTEM_SOCKETS.filter((s) => existsSync(s))) {
      const socketFailure = await probe({ socketPath, user: "root" });
      if (socketFailure !== null) {
        reasons.push(`${socketPath} does not admit root (${socketFailure})`);
        continue;
      }
      const port = await ensureLocalUser(socketPath);
      const tcpLocal = { host: "127.0.0.1", port, user: LOCAL_USER, password: LOCAL_PASSWORD };
      const localFailure = await probe(tcpLocal);
      if (localFailure === null) {
        const reason = `${reasons.join("; ")}; but ${socketPath} admits root`;
        say(
          `using ${await flavour(tcpLocal)} at 127.0.0.1:${port} (user ${LOCAL_USER}, set up ` +
            `via ${socketPath}): ${reason}`,
        );
        return { url: urlFor(tcpLocal), reason, stop: noop };
      }
      reasons.push(`the server behind ${socketPath} is not reachable over TCP (${localFailure})`);
      break; // both socket paths are usually the same server
    }
  }
  const binaries = findBinaries();
  if (!binaries) {
    if (!mayInstall || !canApt()) {
      throw new Error(
        "No MySQL/MariaDB server found (nothing usable on 127.0.0.1:3306) and no " +
          "mariadbd/mysqld binary to start one. " +
          "Install MariaDB (e.g. `apt-get install mariadb-server`) or set DATABASE_URL " +
          "(TEST_DATABASE_URL for tests) to mysql://user:pass@host:port/db.",
      );
    }
    aptInstallMariadb();
    // The package may have started a system service; prefer that if it answers.
    return discoverLocal(`${why}; installed mariadb-server with apt`, false);
  }
  return startPrivate(binaries, reasons.join("; "));
}

interface Binaries {
  server: string;
  /** mariadb-install-db / mysql_install_db; absent on MySQL 8, which uses --initialize-insecure. */
  installDb?: string;
  mariadb: boolean;
}

function findBinaries(): Binaries | undefined {
  const which = (name: string) => Bun.which(name, { PATH: SBIN_PATH }) ?? undefined;
  const server = which("mariadbd") ?? which("mysqld");
  if (!server) return undefined;
  const version = spawnSync(server, ["--version"], { encoding: "utf8" }).stdout ?? "";
  const mariadb = version.includes("MariaDB");
  const installDb =
    which("mariadb-install-db") ?? (mariadb ? which("mysql_install_db") : undefined);
  return { server, installDb, mariadb };
}

function canApt(): boolean {
  return process.getuid?.() === 0 && existsSync("/etc/debian_version");
}

function aptInstallMariadb(): void {
  say("no mariadbd found; installing mariadb-server with apt-get (root on Debian)…");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const args of [["update"], ["install", "-y", "mariadb-server"]]) {
    // apt chatter goes to stderr so stdout stays the program's own.
    const r = spawnSync("apt-get", args, { env, stdio: ["ignore", 2, 2] });
    if (r.status !== 0)
      throw new Error(
        `apt-get ${args.join(" ")} failed (exit ${r.status}); install MariaDB yourself or set DATABASE_URL`,
      );
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function readPid(): number | undefined {
  if (!existsSync(PIDFILE)) return undefined;
  const pid = Number.parseInt(readFileSync(PIDFILE, "utf8").trim(), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** A TCP URL for a private instance: root if it may log in over TCP, else erp_local. */
async function privateUrl(port: number): Promise<string | undefined> {
  const root = { host: "127.0.0.1", port, user: "root" };
  if ((await probe(root)) === null) return urlFor(root);
  await ensureLocalUser(SOCKET);
  const local = { host: "127.0.0.1", port, user: LOCAL_USER, password: LOCAL_PASSWORD };
  return (await probe(local)) === null ? urlFor(local) : undefined;
}

async function startPrivate(bin: Binaries, why: string): Promise<DatabaseServer> {
  const rel = path.relative(process.cwd(), DATADIR) || DATADIR;
  mkdirSync(DATA, { recursive: true });

  // Reuse an instance another run left alive (e.g. `start` is running while `test` runs);
  // whoever started it stops it.
  const oldPid = readPid();
  if (
    oldPid !== undefined &&
    isAlive(oldPid) &&
    (await probe({ socketPath: SOCKET, user: "root" })) === null
  ) {
    const port = await withConnection({ socketPath: SOCKET, user: "root" }, async (c) => {
      const [rows] = await c.query("SELECT @@port AS port");
      return Number((rows as { port: number }[])[0]?.port);
    });
    const url = await privateUrl(port);
    if (!url)
      throw new Error(
        `private mariadbd (pid ${oldPid}, data in ${rel}) runs but 127.0.0.1:${port} does not ` +
          `answer; stop it and retry`,
      );
    const reason = `${why}; a private instance was already running`;
    say(
      `using private ${path.basename(bin.server)} on 127.0.0.1:${port} (pid ${oldPid}) with data in ${rel}: ${reason}`,
    );
    return { url, reason, stop: noop };
  }
  if (oldPid !== undefined) rmSync(PIDFILE, { force: true });
  rmSync(SOCKET, { force: true });

  const asRoot = process.getuid?.() === 0 ? ["--user=root"] : [];
  if (!existsSync(DATADIR) || readdirSync(DATADIR).length === 0) initDatadir(bin, asRoot);

  const port = await freePort();
  const args = [
    "--no-defaults", // must come first; keeps /etc/mysql settings (port, socket, bind) out
    `--datadir=${DATADIR}`,
    `--socket=${SOCKET}`,
    `--pid-file=${PIDFILE}`,
    `--port=${port}`,
    "--bind-address=127.0.0.1",
    "--skip-name-resolve",
    `--log-error=${ERRLOG}`,
    ...(bin.mariadb ? [] : ["--mysqlx=OFF"]),
    ...asRoot,
  ];
  // Own process group, so a Ctrl-C aimed at us does not kill the database mid-cleanup.
  const child = spawn(bin.server, args, { stdio: "ignore", detached: true });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = () => stopChild(child, exited);
  try {
    const url = await waitUntilReady(child, port);
    const reason = why;
    say(
      `started private ${path.basename(bin.server)} on 127.0.0.1:${port} with data in ${rel}: ${reason}`,
    );
    return { url, reason, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

function initDatadir(bin: Binaries, asRoot: string[]): void {
  mkdirSync(DATADIR, { recursive: true });
  const [cmd, args] = bin.installDb
    ? [
        bin.installDb,
        [
          "--no-defaults",
          `--datadir=${DATADIR}`,
          "--auth-root-authentication-method=normal",
          "--skip-test-db",
          ...asRoot,
        ],
      ]
    : [bin.server, ["--no-defaults", "--initialize-insecure", `--datadir=${DATADIR}`, ...asRoot]];
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  if (r.status !== 0) {
    rmSync(DATADIR, { recursive: true, force: true }); // so the next run starts clean
    throw new Error(
      `${path.basename(cmd)} failed (exit ${r.status}):\n${(r.stderr || r.stdout || "").slice(-2000)}`,
    );
  }
}

/** A TCP port nothing listens on now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

async function waitUntilReady(child: ChildProcess, port: number): Promise<string> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `private mariadbd exited during startup (${child.exitCode ?? child.signalCode}); log ${ERRLOG}:\n${logTail()}`,
      );
    }
    if ((await probe({ socketPath: SOCKET, user: "root" })) === null) {
      const url = await privateUrl(port);
      if (url) return url;
    }
    await Bun.sleep(250);
  }
  throw new Error(
    `private mariadbd did not answer on 127.0.0.1:${port} within 60 s; log ${ERRLOG}:\n${logTail()}`,
  );
}

function logTail(): string {
  return existsSync(ERRLOG)
    ? readFileSync(ERRLOG, "utf8").split("\n").slice(-15).join("\n")
    : "(no log)";
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  await exited;
  clearTimeout(timer);
}

/** A database for the server (its tables declare their own character sets whatever its default). */
export async function createDatabase(serverUrl: string, name: string): Promise<void> {
  await withConnection(serverUrl, (c) =>
    c.query(
      `CREATE DATABASE IF NOT EXISTS ${escapeId(name)} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    ),
  );
}

export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await withConnection(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${escapeId(name)}`));
}

/** The server URL with `name` as its database path (query string kept). */
export function withDatabase(serverUrl: string, name: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${encodeURIComponent(name)}`;
  return u.toString();
}
