// A mysql2 pool whose waits are bounded by the request's database budget: acquiring a
// connection and every statement give up when it runs out, and a connection whose statement
// was abandoned is destroyed (the server rolls its transaction back) instead of being reused.
import type { Pool as CorePool, PoolConnection as CorePoolConnection } from "mysql2";
import type { FieldPacket, Pool, PoolConnection, QueryOptions } from "mysql2/promise";
import { DatabaseDeadlineError } from "./errors.ts";
import { remainingBudgetMs } from "./deadline.ts";
import { settleBy, unwatch, watch } from "./deadline-watch.ts";
import type { Supervisor } from "./supervisor.ts";

type QueryInput = string | QueryOptions;
type QueryResult = [unknown, FieldPacket[]];

/** The part of a mysql2 connection drizzle uses, with the budget applied. */
export interface GuardedConnection {
  query(input: QueryInput, values?: unknown): Promise<QueryResult>;
  execute(input: QueryInput, values?: unknown): Promise<QueryResult>;
  /**
   * A statement with no deadline of its own: the caller bounds the wait and decides what happens
   * to a statement still running at its end (a commit text must not be cut off, db/write-transaction.ts).
   */
  unbounded(text: string): Promise<QueryResult>;
  release(): void;
  /** The server's id of this connection (for KILL QUERY). */
  readonly threadId?: number;
  /** Closes the connection instead of returning it to the pool. */
  discard(): void;
}

/** The part of a mysql2 pool drizzle uses (it tells a pool by its `getConnection`). */
export interface GuardedPool {
  getConnection(): Promise<GuardedConnection>;
  query(input: QueryInput, values?: unknown): Promise<QueryResult>;
  execute(input: QueryInput, values?: unknown): Promise<QueryResult>;
  /** The connections outside this pool that interrupt its stuck statements (write pools have them). */
  readonly supervisor?: Supervisor;
  /**
   * On a Galera node: write transactions open with a savepoint that their COMMIT text releases
   * first (db/write-transaction.ts).
   */
  readonly guardCommits: boolean;
  /**
   * The largest text one round trip may send (below the database's max_allowed_packet): a write
   * transaction's text larger than that goes in several (db/write-transaction.ts). Unset: no limit.
   */
  readonly maxTextBytes?: number;
}

/** A statement's options of its own, so the driver never sees a caller's object changed. */
const optionsOf = (input: QueryInput): QueryOptions =>
  typeof input === "string" ? { sql: input } : { ...input };

/** When the current request's budget runs out (epoch ms); throws when it has already. */
function deadline(what: string): number {
  const remaining = remainingBudgetMs();
  if (remaining <= 0) throw new DatabaseDeadlineError(what);
  return Date.now() + remaining;
}

async function acquire(pool: Pool): Promise<PoolConnection> {
  const at = deadline("waiting for a connection");
  const pending = pool.getConnection();
  try {
    return await settleBy(pending, at, () => new DatabaseDeadlineError("waiting for a connection"));
  } catch (error) {
    // A connection that arrives after we gave up goes straight back to the pool.
    pending.then(
      (late) => late.release(),
      () => {},
    );
    throw error;
  }
}

function guard(connection: PoolConnection): GuardedConnection {
  let destroyed = false;
  const run = async (
    method: "query" | "execute",
    input: QueryInput,
    values: unknown,
  ): Promise<QueryResult> => {
    const options = optionsOf(input);
    // A rollback on a connection we destroyed has nothing left to do: the server rolled back.
    if (destroyed && /^\s*rollback\s*$/i.test(options.sql)) return [[], []];
    const at = deadline("a statement");
    const pending =
      method === "query"
        ? connection.query(options, values as never)
        : connection.execute(options, values as never);
    // A statement the budget gave up on is cut off with its connection (the server rolls its
    // transaction back), so the connection never returns to the pool mid-statement.
    return (await settleBy(pending, at, () => {
      destroyed = true;
      connection.destroy();
      return new DatabaseDeadlineError("a statement");
    })) as QueryResult;
  };
  return {
    query: (input, values) => run("query", input, values),
    execute: (input, values) => run("execute", input, values),
    unbounded: (text) => connection.query(text) as Promise<QueryResult>,
    release: () => {
      if (!destroyed) connection.release();
    },
    threadId: connection.threadId ?? undefined,
    discard: () => {
      if (destroyed) return;
      destroyed = true;
      connection.destroy();
    },
  };
}

/**
 * One statement outside a transaction, on whichever connection the pool has free: through the
 * driver's callbacks with one deadline watch for the wait and the statement together, so a hot
 * read allocates no connection wrapper and arms no timer of its own (bench/README.md).
 */
function runOnce(
  pool: CorePool,
  method: "query" | "execute",
  input: QueryInput,
  values: unknown,
): Promise<QueryResult> {
  const at = deadline("waiting for a connection");
  const options = optionsOf(input);
  return new Promise<QueryResult>((resolve, reject) => {
    let running: CorePoolConnection | undefined;
    let expired = false;
    const watched = watch(at, () => {
      expired = true;
      if (!running) return reject(new DatabaseDeadlineError("waiting for a connection"));
      // Cut off with its connection, which then never returns to the pool mid-statement.
      running.destroy();
      reject(new DatabaseDeadlineError("a statement"));
    });
    pool.getConnection((error, connection) => {
      // A connection that arrives after we gave up goes straight back to the pool.
      if (expired) return connection?.release();
      if (error) {
        unwatch(watched);
        return reject(error);
      }
      running = connection;
      const done = (failure: unknown, rows: unknown, fields: FieldPacket[]): void => {
        if (expired) return;
        unwatch(watched);
        connection.release();
        if (failure) reject(failure);
        else resolve([rows, fields]);
      };
      try {
        if (method === "query") connection.query(options, values as never, done);
        else connection.execute(options, values as never, done);
      } catch (thrown) {
        // The driver refuses some values at once (an undefined bind value): outside this
        // promise's executor that would escape as an uncaught exception and keep the connection.
        done(thrown, undefined, []);
      }
    });
  });
}

export function guardPool(
  pool: Pool,
  options: { guardCommits?: boolean; supervisor?: Supervisor; maxTextBytes?: number } = {},
): GuardedPool {
  const once = (
    method: "query" | "execute",
    input: QueryInput,
    values: unknown,
  ): Promise<QueryResult> => runOnce(pool.pool, method, input, values);
  return {
    getConnection: async () => guard(await acquire(pool)),
    query: (input, values) => once("query", input, values),
    execute: (input, values) => once("execute", input, values),
    supervisor: options.supervisor,
    guardCommits: options.guardCommits ?? false,
    maxTextBytes: options.maxTextBytes,
  };
}
