// The connection pools (reads, and write transactions) and the drizzle handle every module shares.
import mysql from "mysql2/promise";
import { log } from "../base/log.ts";
import { errorLabel } from "./errors.ts";
import { observedPool } from "./observed-pool.ts";
import { guardPool, type GuardedPool } from "./pool.ts";
import { type Database, drizzleOver } from "./sql.ts";
import { sessionStatements } from "./session.ts";
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
  /** Session settings beyond the common ones, which the start check found this server needs. */
  session?: readonly string[];
  /**
   * How long a connection may sit idle in a pool before the pool closes it: shorter than the
   * database's wait_timeout, so the pool never hands out a connection the database dropped. By
   * default idle connections are kept.
   */
  idleTimeoutMs?: number;
  /** The largest text one round trip may send (the database's max_allowed_packet, db/write-transaction.ts). */
  maxTextBytes?: number;
}

/** Connections of the write pool's supervisor: its statements take milliseconds. */
const SUPERVISOR_CONNECTIONS = 4;

interface CallbackConnection {
  query(sql: string, done: (error: unknown) => void): void;
  destroy(): void;
}

function createPool(url: string, options: ConnectOptions, writes: boolean): mysql.Pool {
  const limit = options.connectionLimit ?? 10;
  const pool = mysql.createPool({
    uri: url,
    connectionLimit: limit,
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
    // Idle connections are closed before the database would drop them (wait_timeout): mysql2
    // closes those idle longer than idleTimeout once a second, and only while maxIdle is below
    // the limit (it then also closes one of a pool whose every connection is idle).
    ...(options.idleTimeoutMs === undefined
      ? {}
      : { maxIdle: Math.max(0, limit - 1), idleTimeout: options.idleTimeoutMs }),
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
  const settings = sessionStatements({
    galera: options.galera,
    autocommit: !writes,
    extra: options.session,
  });
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
        maxTextBytes: options.maxTextBytes,
        supervisor: new Supervisor(guardPool(supervision)),
      }),
    ),
    close: async () => void (await Promise.all([pool.end(), writes.end(), supervision.end()])),
  };
}
