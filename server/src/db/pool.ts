// A mysql2 pool whose waits are bounded by the request's database budget: acquiring a
// connection and every statement give up when it runs out, and a connection whose statement
// was abandoned is destroyed (the server rolls its transaction back) instead of being reused.
import type { FieldPacket, Pool, PoolConnection, QueryOptions } from "mysql2/promise";
import { DatabaseDeadlineError } from "./errors.ts";
import { remainingBudgetMs, withDatabaseBudget } from "./deadline.ts";

type QueryInput = string | QueryOptions;
type QueryResult = [unknown, FieldPacket[]];

/** The part of a mysql2 connection drizzle uses, with the budget applied. */
export interface GuardedConnection {
  query(input: QueryInput, values?: unknown): Promise<QueryResult>;
  execute(input: QueryInput, values?: unknown): Promise<QueryResult>;
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
  /** Interrupts the statement a connection of this database runs (in a budget of its own). */
  killQuery(threadId: number): Promise<void>;
  /** On a Galera node: write transactions open with a savepoint that their COMMIT text releases first (db/write-transaction.ts). */
  readonly guardCommits: boolean;
}

/** How long the interruption of a statement may take. */
const KILL_BUDGET_MS = 2_000;

function budget(what: string): number {
  const remaining = remainingBudgetMs();
  if (remaining <= 0) throw new DatabaseDeadlineError(what);
  return remaining;
}

async function acquire(pool: Pool): Promise<PoolConnection> {
  const waitMs = budget("waiting for a connection");
  const pending = pool.getConnection();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DatabaseDeadlineError("waiting for a connection")), waitMs);
  });
  try {
    return await Promise.race([pending, expired]);
  } catch (error) {
    // A connection that arrives after we gave up goes straight back to the pool.
    pending.then((late) => late.release(), () => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function guard(connection: PoolConnection): GuardedConnection {
  let destroyed = false;
  const run = async (method: "query" | "execute", input: QueryInput, values: unknown): Promise<QueryResult> => {
    const options: QueryOptions = typeof input === "string" ? { sql: input } : { ...input };
    // A rollback on a connection we destroyed has nothing left to do: the server rolled back.
    if (destroyed && /^\s*rollback\s*$/i.test(options.sql)) return [[], []];
    options.timeout = budget("a statement");
    try {
      const pending = method === "query" ? connection.query(options, values as never) : connection.execute(options, values as never);
      return (await pending) as QueryResult;
    } catch (error) {
      if ((error as { code?: string }).code === "PROTOCOL_SEQUENCE_TIMEOUT") {
        destroyed = true;
        connection.destroy();
        throw new DatabaseDeadlineError("a statement");
      }
      throw error;
    }
  };
  return {
    query: (input, values) => run("query", input, values),
    execute: (input, values) => run("execute", input, values),
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

export function guardPool(pool: Pool, options: { guardCommits?: boolean } = {}): GuardedPool {
  const once = async (method: "query" | "execute", input: QueryInput, values: unknown): Promise<QueryResult> => {
    const connection = guard(await acquire(pool));
    try {
      return await connection[method](input, values);
    } finally {
      connection.release();
    }
  };
  return {
    getConnection: async () => guard(await acquire(pool)),
    query: (input, values) => once("query", input, values),
    execute: (input, values) => once("execute", input, values),
    killQuery: (threadId) => withDatabaseBudget(async () => void await once("query", "KILL QUERY ?", [threadId]), KILL_BUDGET_MS),
    guardCommits: options.guardCommits ?? false,
  };
}
