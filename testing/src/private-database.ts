// A MariaDB server of a test's own (its own data directory and port), which the test may stop,
// kill or freeze under a running API server: the database faults of the fault suite.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import mysql from "mysql2/promise";
import { freePort } from "../../scripts/lib/provision.ts";

const SBIN_PATH = `${process.env.PATH ?? ""}:/usr/sbin:/usr/local/sbin:/sbin`;

export class PrivateDatabase {
  readonly dir = mkdtempSync(path.join(tmpdir(), "erp-fault-db-"));

  /**
   * `settings`: server options beyond the compiled defaults, as mariadbd takes them on its
   * command line (`--wait-timeout=5`). Without them the server runs as MariaDB is compiled:
   * latin1, the system's time zone, REPEATABLE READ.
   */
  constructor(readonly settings: readonly string[] = []) {}

  #child: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();
  #port = 0;

  /** `mysql://root@127.0.0.1:<port>/<database>`; the port stays the same across restarts. */
  url(database = ""): string {
    return `mysql://root@127.0.0.1:${this.#port}/${database}`;
  }

  get running(): boolean {
    return (
      this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null
    );
  }

  /** Initialises the data directory on first use, then starts mariadbd and waits until it answers. */
  async start(): Promise<void> {
    const server = Bun.which("mariadbd", { PATH: SBIN_PATH });
    if (!server) throw new Error("mariadbd is not installed (apt-get install mariadb-server)");
    const datadir = path.join(this.dir, "data");
    const asRoot = process.getuid?.() === 0 ? ["--user=root"] : [];
    if (this.#port === 0) {
      const installDb =
        Bun.which("mariadb-install-db", { PATH: SBIN_PATH }) ??
        Bun.which("mysql_install_db", { PATH: SBIN_PATH });
      if (!installDb) throw new Error("mariadb-install-db is not installed");
      const init = spawnSync(
        installDb,
        [
          "--no-defaults",
          `--datadir=${datadir}`,
          "--auth-root-authentication-method=normal",
          "--skip-test-db",
          ...asRoot,
        ],
        { encoding: "utf8" },
      );
      if (init.status !== 0)
        throw new Error(`mariadb-install-db failed: ${(init.stderr || init.stdout).slice(-1000)}`);
      this.#port = await freePort();
    }
    const child = spawn(
      server,
      [
        "--no-defaults",
        `--datadir=${datadir}`,
        `--socket=${path.join(this.dir, "mysqld.sock")}`,
        `--pid-file=${path.join(this.dir, "mysqld.pid")}`,
        `--port=${this.#port}`,
        "--bind-address=127.0.0.1",
        "--skip-name-resolve",
        `--log-error=${path.join(this.dir, "error.log")}`,
        "--innodb-buffer-pool-size=64M",
        "--innodb-log-file-size=48M",
        ...this.settings,
        ...asRoot,
      ],
      { stdio: "ignore" },
    );
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once("exit", () => resolve()));
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (!this.running)
        throw new Error(`mariadbd exited while starting; see ${path.join(this.dir, "error.log")}`);
      try {
        const connection = await mysql.createConnection({
          host: "127.0.0.1",
          port: this.#port,
          user: "root",
        });
        await connection.end();
        return;
      } catch {
        await Bun.sleep(200);
      }
    }
    throw new Error("mariadbd did not answer within 60 s");
  }

  /** SIGTERM stops it cleanly; SIGKILL is a crash (InnoDB recovers at the next start). */
  async stop(signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): Promise<void> {
    if (!this.running) return;
    this.#child!.kill(signal);
    await this.#exited;
  }

  /** Freezes the server (SIGSTOP): connections stay open and nothing answers, as in a partition. */
  freeze(): void {
    if (this.running) this.#child!.kill("SIGSTOP");
  }

  /** Lets a frozen server go on (SIGCONT) from where it stopped. */
  thaw(): void {
    if (this.running) this.#child!.kill("SIGCONT");
  }

  /** Runs statements on the private server as root (creating databases, inspecting rows). */
  async query<T = unknown>(sql: string, params: unknown[] = [], database?: string): Promise<T> {
    const connection = await mysql.createConnection({
      host: "127.0.0.1",
      port: this.#port,
      user: "root",
      database,
    });
    try {
      const [rows] = await connection.query(sql, params);
      return rows as T;
    } finally {
      await connection.end();
    }
  }

  /** Stops the server and deletes its data. */
  async destroy(): Promise<void> {
    this.thaw();
    await this.stop("SIGKILL");
    rmSync(this.dir, { recursive: true, force: true });
  }
}
