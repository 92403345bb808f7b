// The one adapter between the server's SQL and the driver. Statements are written with drizzle: its
// query builder, or its `sql` template for what the builder cannot say, run here by `selectRows` and
// `runStatement`. Two kinds of statement skip drizzle's building, each for a reason: the hot reads'
// fixed texts run as server-side prepared statements (`executePrepared`), and a write's whole
// transaction goes as one text (db/write-transaction.ts) whose values are written into it as
// literals (`sqlLiteral`, `sqlRows`, `fillPlaceholders`). Only this module knows what a drizzle
// handle runs on, and only its callers' queries name the rows they read.
import { drizzle, type MySql2Database } from "drizzle-orm/mysql2";
import type { SQL } from "drizzle-orm";
import mysql, { type ResultSetHeader, type TypedParameterValue } from "mysql2";
import type { Pool, QueryOptions } from "mysql2/promise";
import * as schema from "./schema.ts";

export type Database = MySql2Database<typeof schema>;
export type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];
export type Executor = Database | Transaction;

/** What a drizzle handle sends its statements to: a guarded pool, or one connection (pool.ts). */
export interface Driver {
  query(input: string | QueryOptions, values?: unknown): Promise<[unknown, unknown]>;
  execute(input: string | QueryOptions, values?: unknown): Promise<[unknown, unknown]>;
}

/** The driver under each handle made here; a transaction drizzle opens has none (see executePrepared). */
const drivers = new WeakMap<Executor, Driver>();

/**
 * A drizzle handle over a driver: the guarded read pool, or a write transaction's connection. A
 * write transaction's handle (one per write) is made `bare`: without the schema drizzle would read
 * all relations from on every call, which only `db.query` (never used there) needs.
 */
export function drizzleOver(driver: Driver, options: { bare?: boolean } = {}): Database {
  const db = options.bare
    ? (drizzle(driver as Pool, { mode: "default" }) as unknown as Database)
    : drizzle(driver as Pool, { schema, mode: "default" });
  drivers.set(db, driver);
  return db;
}

/** The rows a SELECT written as a `sql` template answers, each of the shape its columns name. */
export async function selectRows<Row>(db: Executor, query: SQL): Promise<Row[]> {
  const [rows] = await db.execute(query);
  // The driver answers a SELECT with its rows; drizzle's type is the one of a write's header.
  return rows as unknown as Row[];
}

/** Runs an INSERT, UPDATE or DELETE written as a `sql` template: what it did. */
export async function runStatement(db: Executor, query: SQL): Promise<ResultSetHeader> {
  const [header] = await db.execute(query);
  return header;
}

/**
 * The rows of one SELECT read uncommitted, so that rows other transactions inserted and have not
 * committed yet count: on a connection of the write pool (several statements a text), the
 * isolation level is set for this one statement and its transaction ended, in one round trip.
 */
export async function selectUncommitted<Row>(
  pool: { getConnection(): Promise<Driver & { release(): void }> },
  text: string,
  values: readonly unknown[],
): Promise<Row[]> {
  const connection = await pool.getConnection();
  try {
    const [results] = await connection.query(
      `SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED; ${text}; ROLLBACK`,
      values,
    );
    // A text of three statements answers three results; the SELECT's is the second.
    return (results as Row[][])[1]!;
  } finally {
    connection.release();
  }
}

/**
 * Runs one of the few fixed texts as a server-side prepared statement (`?` placeholders, no value
 * undefined): each connection prepares a text once, then sends only values, and gets binary rows,
 * where drizzle builds a statement's SQL anew on every call. Never pass a text that varies with
 * the request: the database caps prepared statements across all connections
 * (max_prepared_stmt_count, 16,382 by default), so texts that vary (a record's column set, a
 * batch's row count) never go this way. `db` is a handle made by `drizzleOver`.
 */
export function executePrepared<T = ResultSetHeader>(
  db: Executor,
  text: string,
  values: readonly unknown[],
): Promise<T> {
  const driver = drivers.get(db);
  if (!driver)
    return Promise.reject(new Error("a prepared statement runs on a handle made by drizzleOver"));
  return driver.execute(text, values).then(firstOf) as Promise<T>;
}

const firstOf = ([result]: [unknown, unknown]): unknown => result;

/**
 * An integer bound as BIGINT UNSIGNED: mysql2 sends a plain JavaScript number to a prepared
 * statement as DOUBLE, which MySQL 8.0.22+ refuses for LIMIT and OFFSET.
 */
export const unsignedInteger = (value: number): TypedParameterValue =>
  mysql.TypedParameter.LONGLONG.unsigned(value);

// Values written into a write's text. A batch's rows, events and keys are built as `(…), (…)` text
// directly, and the few placeholders of the other statements are filled in here, without the
// driver's scan of a large text. Escaping is the driver's for the backslash-escape mode every
// connection uses: a backslash, a quote, NUL and Ctrl-Z are escaped; other characters, line
// breaks and double quotes (JSON is full of them) are valid as they are inside a single-quoted
// literal.
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL and Ctrl-Z are what must be escaped
const SPECIAL = /[\0\x1a'\\]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above
const SPECIALS = /[\0\x1a'\\]/g;
const ESCAPES: Record<string, string> = { "\0": "\\0", "\x1a": "\\Z", "'": "\\'", "\\": "\\\\" };

/** A value as SQL text: NULL, a number, TRUE/FALSE, a quoted string, X'…' bytes, or a list's values. */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  switch (typeof value) {
    case "number":
      if (!Number.isFinite(value)) throw new Error("a statement value must be a finite number");
      return String(value);
    case "bigint":
      return String(value);
    case "boolean":
      return value ? "TRUE" : "FALSE";
    case "string":
      return SPECIAL.test(value)
        ? `'${value.replace(SPECIALS, (char) => ESCAPES[char]!)}'`
        : `'${value}'`;
    default:
      if (value instanceof Uint8Array) return `X'${Buffer.from(value).toString("hex")}'`;
      // A list fills an IN (?): its values, comma-separated.
      if (Array.isArray(value)) return value.map(sqlLiteral).join(", ");
      throw new Error(`a statement value cannot be a ${typeof value}`);
  }
}

/** `(a, b)`, `(c, d)`: each row's values as literals, one text per row (db/write-transaction.ts's `rowsStatement`). */
export function sqlRows(rows: readonly (readonly unknown[])[]): string[] {
  return rows.map((row) => `(${row.map(sqlLiteral).join(", ")})`);
}

/**
 * A text's `?` placeholders filled in with its values, in order. Every `?` of the text is a
 * placeholder (our texts have none inside a literal); a count that does not match the values
 * throws. A `?` inside a value is safe: values are written in, never split.
 */
export function fillPlaceholders(text: string, values: readonly unknown[]): string {
  const parts = text.split("?");
  if (parts.length - 1 !== values.length)
    throw new Error(`a statement has ${parts.length - 1} placeholders and ${values.length} values`);
  let filled = parts[0]!;
  for (let index = 0; index < values.length; index++)
    filled += sqlLiteral(values[index]) + parts[index + 1]!;
  return filled;
}
