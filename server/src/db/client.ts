// The connection pools (reads, and write transactions) and the drizzle handle every module shares.
import mysql from "mysql2/promise";
import { log } from "../base/log.ts";
import { errorLabel } from "./errors.ts";
import { observedPool } from "./observed-pool.ts";
import { guardPool, type GuardedPool } from "./pool.ts";
import { type Database, drizzleOver } from "./sql.ts";
import { Supervisor } from "./supervisor.ts";

export type { Database, Executor, Transaction } from "./sql.ts";

export interface DatabaseHandle {
  db: Database;
  pool: mysql.Pool;
  /** The driver's pool under `writer` (its state is a metric). */
  writePool: mysql.Pool;
  /** The pool under `db` (autocommit), for statements sent without drizzle. */
  reader: GuardedPool;
  /** Connections for write transactions: autocommit off, several statements per round trip. */
  writer: GuardedPool;
  close(): Promise<void>;
}

export interface ConnectOptions {
  connectionLimit?: number;
  /**
   * A Galera node: reads wait until this node has applied every earlier commit, and a write's
   * COMMIT is guarded by a savepoint (db/write-transaction.ts says why).
   */
  galera?: boolean;
}

/** Connections of the write pool's supervisor: its statements take milliseconds. */
const SUPERVISOR_CONNECTIONS = 4;

/** Seconds a statement waits for a row or table lock before it gives up (and is retried). */
export const LOCK_WAIT_SECONDS = 5;

/**
 * Run once per connection, so each transaction costs only its own statements: UTC, READ
 * COMMITTED (every check reads the latest commits; row locks order competing writes), and
 * lock waits far inside a request's budget. Valid on MySQL 8 and MariaDB alike (the isolation
 * level's variable is named differently on each, its SET statement is not). Write connections
 * also turn autocommit off: their first statement opens the transaction, so a write sends no
 * BEGIN (JDBC's model), and it always ends with the COMMIT or ROLLBACK of db/write-transaction.ts.
 */
function sessionSettings(galera: boolean, autocommit: boolean): string[] {
  const variables = [
    "time_zone = '+00:00'",
    `SESSION innodb_lock_wait_timeout = ${LOCK_WAIT_SECONDS}`,
    `SESSION lock_wait_timeout = ${LOCK_WAIT_SECONDS}`,
    ...(galera ? ["SESSION wsrep_sync_wait = 1"] : []),
    ...(autocommit ? [] : ["SESSION autocommit = 0"]),
  ];
  return [`SET ${variables.join(", ")}`, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"];
}

interface CallbackConnection {
  query(sql: string, done: (error: unknown) => void): void;
  destroy(): void;
}

function createPool(url: string, options: ConnectOptions, writes: boolean): mysql.Pool {
  const pool = mysql.createPool({
    uri: url,
    connectionLimit: options.connectionLimit ?? 10,
    connectTimeout: 5_000,
    // Timestamps are stored and read as UTC; DATE columns stay YYYY-MM-DD strings.
    timezone: "Z",
    dateStrings: ["DATE"],
    decimalNumbers: false,
    supportBigNumbers: true,
    enableKeepAlive: true,
    // mysql2 otherwise captures a stack trace per query (10% of a busy server's CPU); our errors
    // are classified by code, never read for their stack.
    trace: false,
    // The prepared statements a connection keeps (db/sql.ts runs about 20 fixed texts);
    // mysql2's default of 16,000 per connection could reach the database's global cap.
    maxPreparedStatements: 64,
    // A write sends its statements and its COMMIT as one text (one round trip), each value in it
    // escaped (db/write-transaction.ts, db/sql.ts), never text spliced in as it came.
    multipleStatements: writes,
    // A text sent without values goes as it is: the driver would otherwise scan it whole for
    // placeholders, and a batch's text is hundreds of kilobytes.
    ...(writes
      ? {
          queryFormat: (sql: string, values: unknown) =>
            Array.isArray(values) && values.length > 0
              ? mysql.format(sql, values, false, "Z")
              : sql,
        }
      : {}),
  } as mysql.PoolOptions);
  const settings = sessionSettings(options.galera ?? false, !writes);
  pool.on("connection", (pooled) => {
    // The event hands over the callback-style connection; these statements queue ahead of its
    // first one. A connection that cannot be set up is destroyed rather than used without them.
    const connection = pooled as unknown as CallbackConnection;
    for (const statement of settings) {
      connection.query(statement, (error) => {
        if (!error) return;
        log.throttled(
          "error",
          "session-settings",
          "a database connection could not be set up; dropped",
          { error: errorLabel(error) },
        );
        connection.destroy();
      });
    }
  });
  return pool;
}

export function connectDatabase(url: string, options: ConnectOptions = {}): DatabaseHandle {
  const pool = createPool(url, options, false);
  const writes = createPool(url, options, true);
  // Outside both pools, so that it never waits behind the statements it is there to stop.
  const supervision = createPool(
    url,
    { ...options, connectionLimit: SUPERVISOR_CONNECTIONS },
    false,
  );
  const reader = observedPool("read", guardPool(pool));
  const db = drizzleOver(reader);
  return {
    db,
    pool,
    writePool: writes,
    reader,
    writer: observedPool(
      "write",
      guardPool(writes, {
        guardCommits: options.galera ?? false,
        supervisor: new Supervisor(guardPool(supervision)),
      }),
    ),
    close: async () => void (await Promise.all([pool.end(), writes.end(), supervision.end()])),
  };
}

/** True when the server is a Galera node (wsrep on); MySQL has no such variable. */
export async function isGaleraNode(url: string): Promise<boolean> {
  const connection = await mysql.createConnection({ uri: url, connectTimeout: 5_000 });
  try {
    const [rows] = await connection.query("SHOW VARIABLES LIKE 'wsrep_on'");
    return (rows as { Value?: string }[])[0]?.Value === "ON";
  } finally {
    await connection.end();
  }
}
