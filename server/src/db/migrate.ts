// Applies the committed drizzle migrations over one dedicated connection. Servers starting
// together on one database (or on several nodes of a Galera cluster, where GET_LOCK is local to
// a node) take turns through a leased row: a write-write conflict on one row is the one thing
// every node agrees on. The database itself is created when it does not exist yet.
import { join } from "node:path";
import mysql from "mysql2/promise";
import { drizzle } from "drizzle-orm/mysql2";
import { migrate } from "drizzle-orm/mysql2/migrator";
import { databaseErrorKind } from "./errors.ts";

const MIGRATIONS = join(import.meta.dir, "..", "..", "drizzle");
const ER_BAD_DB_ERROR = 1049;
/** A holder that died keeps the lock at most this long. */
const LEASE_SECONDS = 120;
const WAIT_MS = 180_000;

async function connect(url: string): Promise<mysql.Connection> {
  try {
    return await mysql.createConnection({ uri: url, timezone: "Z", connectTimeout: 5_000 });
  } catch (error) {
    if ((error as { errno?: number }).errno !== ER_BAD_DB_ERROR) throw error;
    await createDatabase(url);
    return mysql.createConnection({ uri: url, timezone: "Z", connectTimeout: 5_000 });
  }
}

/** CREATE DATABASE IF NOT EXISTS for the database a URL names. */
async function createDatabase(url: string): Promise<void> {
  const parsed = new URL(url);
  const name = decodeURIComponent(parsed.pathname.replace(/^\//, ""));
  parsed.pathname = "/";
  const server = await mysql.createConnection({ uri: parsed.toString(), connectTimeout: 5_000 });
  try {
    await server.query(
      `CREATE DATABASE IF NOT EXISTS ${mysql.escapeId(name)} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
  } finally {
    await server.end();
  }
}

async function acquireLease(connection: mysql.Connection, owner: string): Promise<void> {
  await connection.query(`CREATE TABLE IF NOT EXISTS erp_migration_lock (
    id TINYINT UNSIGNED NOT NULL PRIMARY KEY, owner CHAR(36) NOT NULL, expires_at DATETIME(3) NOT NULL)`);
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      await connection.query(
        `INSERT INTO erp_migration_lock (id, owner, expires_at) VALUES (1, ?, NOW(3) + INTERVAL ${LEASE_SECONDS} SECOND)
        ON DUPLICATE KEY UPDATE owner = IF(expires_at < NOW(3), VALUES(owner), owner),
          expires_at = IF(expires_at < NOW(3), VALUES(expires_at), expires_at)`,
        [owner],
      );
      const [rows] = await connection.query("SELECT owner FROM erp_migration_lock WHERE id = 1");
      if ((rows as { owner: string }[])[0]?.owner === owner) return;
    } catch (error) {
      // Another node wrote the row at the same moment: the cluster certified theirs first.
      if (databaseErrorKind(error) !== "retryable" && databaseErrorKind(error) !== "lock_wait")
        throw error;
    }
    if (Date.now() > deadline)
      throw new Error(`another server has held the migration lock for over ${WAIT_MS / 1000} s`);
    await Bun.sleep(250 + Math.random() * 250);
  }
}

export async function migrateDatabase(url: string): Promise<void> {
  const connection = await connect(url);
  const owner = crypto.randomUUID();
  try {
    const [wsrep] = await connection.query("SHOW VARIABLES LIKE 'wsrep_on'");
    // On a cluster, read what other nodes committed (the migrations they applied) before acting.
    if ((wsrep as { Value?: string }[])[0]?.Value === "ON")
      await connection.query("SET SESSION wsrep_sync_wait = 1");
    await acquireLease(connection, owner);
    try {
      await migrate(drizzle(connection), { migrationsFolder: MIGRATIONS });
    } finally {
      await connection.query("DELETE FROM erp_migration_lock WHERE id = 1 AND owner = ?", [owner]);
    }
  } finally {
    await connection.end();
  }
}
