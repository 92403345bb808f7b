// Checks the database server (db/server-check.ts), applies the committed drizzle migrations over one
// dedicated connection, then converts the text of tables made before their character sets were
// declared (db/character-sets.ts) and checks the tables. Servers starting
// together on one database (or on several nodes of a Galera cluster, where GET_LOCK is local to
// a node) take turns through a leased row: a write-write conflict on one row is the one thing
// every node agrees on. The database itself is created when it does not exist yet.
import { join } from "node:path";
import mysql from "mysql2/promise";
import { drizzle } from "drizzle-orm/mysql2";
import { migrate } from "drizzle-orm/mysql2/migrator";
import { convertTables, declaredTables, latestSnapshot } from "./character-sets.ts";
import { declaration, TEXT_COLLATION } from "./columns.ts";
import { databaseErrorKind } from "./errors.ts";
import { checkTables, inspectServer, type ServerFacts } from "./server-check.ts";

const MIGRATIONS = join(import.meta.dir, "..", "..", "drizzle");
const ER_BAD_DB_ERROR = 1049;
/** A holder that died keeps the lock at most this long; a live one renews it this often. */
const LEASE_SECONDS = 120;
const RENEW_MS = 20_000;
/** How long a server waits for a holder that stopped renewing its lease before it gives up. */
const WAIT_MS = 180_000;

async function connect(url: string): Promise<mysql.Connection> {
  const open = () => mysql.createConnection({ uri: url, timezone: "Z", connectTimeout: 5_000 });
  let connection: mysql.Connection;
  try {
    connection = await open();
  } catch (error) {
    if ((error as { errno?: number }).errno !== ER_BAD_DB_ERROR) throw error;
    await createDatabase(url);
    connection = await open();
  }
  return connection;
}

/** CREATE DATABASE IF NOT EXISTS for the database a URL names. */
async function createDatabase(url: string): Promise<void> {
  const parsed = new URL(url);
  const name = decodeURIComponent(parsed.pathname.replace(/^\//, ""));
  parsed.pathname = "/";
  const server = await mysql.createConnection({ uri: parsed.toString(), connectTimeout: 5_000 });
  try {
    await server.query(
      `CREATE DATABASE IF NOT EXISTS ${mysql.escapeId(name)} ${declaration(TEXT_COLLATION)}`,
    );
  } finally {
    await server.end();
  }
}

// Times in UTC whatever a connection's time zone (the renewing one sets none).
const TAKE_LEASE = `INSERT INTO erp_migration_lock (id, owner, expires_at)
  VALUES (1, ?, UTC_TIMESTAMP(3) + INTERVAL ${LEASE_SECONDS} SECOND)
  ON DUPLICATE KEY UPDATE owner = IF(expires_at < UTC_TIMESTAMP(3), VALUES(owner), owner),
    expires_at = IF(expires_at < UTC_TIMESTAMP(3), VALUES(expires_at), expires_at)`;
const RENEW_LEASE = `UPDATE erp_migration_lock SET expires_at = UTC_TIMESTAMP(3) + INTERVAL ${LEASE_SECONDS} SECOND
  WHERE id = 1 AND owner = ?`;

async function acquireLease(connection: mysql.Connection, owner: string): Promise<void> {
  await connection.query(`CREATE TABLE IF NOT EXISTS erp_migration_lock (
    id TINYINT UNSIGNED NOT NULL PRIMARY KEY,
    owner CHAR(36) ${declaration(TEXT_COLLATION)} NOT NULL,
    expires_at DATETIME(3) NOT NULL) ${declaration(TEXT_COLLATION)}`);
  let deadline = Date.now() + WAIT_MS;
  let seen: string | undefined;
  for (;;) {
    try {
      await connection.query(TAKE_LEASE, [owner]);
      const [rows] = await connection.query(
        "SELECT owner, CAST(expires_at AS CHAR) AS until FROM erp_migration_lock WHERE id = 1",
      );
      const holder = (rows as { owner: string; until: string }[])[0];
      if (holder?.owner === owner) return;
      // A holder that renews its lease is at work (a long conversion): wait for it.
      const lease = `${holder?.owner} ${holder?.until}`;
      if (lease !== seen) deadline = Date.now() + WAIT_MS;
      seen = lease;
    } catch (error) {
      // Another node wrote the row at the same moment: the cluster certified theirs first.
      if (databaseErrorKind(error) !== "retryable" && databaseErrorKind(error) !== "lock_wait")
        throw error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `another server has held the migration lock for over ${WAIT_MS / 1000} s without renewing it`,
      );
    await Bun.sleep(250 + Math.random() * 250);
  }
}

/**
 * Renews the lease every RENEW_MS from a connection of its own while `work` runs (an ALTER of a
 * large table holds the migrating connection for minutes).
 */
async function whileRenewing<T>(url: string, owner: string, work: () => Promise<T>): Promise<T> {
  const renewer = await mysql.createConnection({ uri: url, connectTimeout: 5_000 });
  // A failed renewal is tried again at the next tick; the lease outlives several.
  renewer.on("error", () => {});
  const timer = setInterval(() => {
    renewer.query(RENEW_LEASE, [owner]).catch(() => undefined);
  }, RENEW_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    await renewer.end().catch(() => renewer.destroy());
  }
}

/**
 * Migrates the database a URL names (creating it when missing) and answers what the server's pools
 * need to know of the database server.
 */
export async function migrateDatabase(url: string): Promise<ServerFacts> {
  const connection = await connect(url);
  const owner = crypto.randomUUID();
  try {
    // The settings of every connection (UTF-8, UTC, sql_mode; on a cluster, reads that see what
    // other nodes committed, such as the migrations they applied), and tables the migrations
    // create are InnoDB's whatever the server's default engine.
    const facts = await inspectServer(connection, ["SESSION default_storage_engine = InnoDB"]);
    const declared = declaredTables(latestSnapshot(MIGRATIONS));
    await acquireLease(connection, owner);
    try {
      await whileRenewing(url, owner, async () => {
        await migrate(drizzle(connection), { migrationsFolder: MIGRATIONS });
        await convertTables(connection, declared);
      });
    } finally {
      await connection.query("DELETE FROM erp_migration_lock WHERE id = 1 AND owner = ?", [owner]);
    }
    await checkTables(connection, declared);
    return facts;
  } finally {
    await connection.end();
  }
}
