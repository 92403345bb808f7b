// The hot reads' statements with their SQL text built once, sent straight to the driver as
// server-side prepared statements (each connection prepares a text once, then sends only values,
// and gets binary rows): drizzle builds a statement's SQL anew on every call. Only a few fixed
// texts may go this way: the database caps prepared statements across all connections
// (max_prepared_stmt_count, 16,382 by default), so texts that vary with the request (a record's
// column set, a batch's row count) never do; writes send theirs as one text (db/write-transaction.ts).
import mysql, { type ResultSetHeader, type TypedParameterValue } from "mysql2";
import type { Executor } from "./client.ts";
import type { GuardedConnection, GuardedPool } from "./pool.ts";

/** The driver under a drizzle handle: the guarded pool of the database, or a transaction's connection. */
function driverOf(db: Executor): GuardedConnection | GuardedPool {
  return (db as unknown as { session: { client: GuardedConnection | GuardedPool } }).session.client;
}

/**
 * Runs one of the few fixed texts as a server-side prepared statement (`?` placeholders, no value
 * undefined). Never pass a text that varies with the request: see above.
 */
export async function executePrepared<T = ResultSetHeader>(
  db: Executor,
  text: string,
  values: readonly unknown[],
): Promise<T> {
  const [result] = await driverOf(db).execute(text, values);
  return result as T;
}

/**
 * An integer bound as BIGINT UNSIGNED: mysql2 sends a plain JavaScript number to a prepared
 * statement as DOUBLE, which MySQL 8.0.22+ refuses for LIMIT and OFFSET.
 */
export const unsignedInteger = (value: number): TypedParameterValue =>
  mysql.TypedParameter.LONGLONG.unsigned(value);
