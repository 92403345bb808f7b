// The hot path's statements with their SQL text built once, sent straight to the driver: drizzle
// builds a statement's SQL anew on every call, which was about a fifth of a busy server's CPU
// under creates. Everything else keeps drizzle.
//
// Only a few fixed texts become server-side prepared statements (each connection prepares it once,
// then sends only values). The database caps prepared statements across all connections
// (max_prepared_stmt_count, 16,382 by default), so texts that vary with the request (a record's
// column set, a batch's row count) are sent as plain statements with the values escaped in:
// otherwise a client sending many field combinations could use up the cap for everyone.
import { getTableColumns, getTableName, type Column, type Table } from "drizzle-orm";
import type { ResultSetHeader } from "mysql2";
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
export async function executePrepared<T = ResultSetHeader>(db: Executor, text: string, values: readonly unknown[]): Promise<T> {
  const [result] = await driverOf(db).execute(text, values);
  return result as T;
}

/** Runs a text whose shape varies with the request, with its values escaped in by the driver. */
export async function executeShaped<T = ResultSetHeader>(db: Executor, text: string, values: readonly unknown[]): Promise<T> {
  const [result] = await driverOf(db).query(text, values);
  return result as T;
}

/** `(?, ?, ?), (?, ?, ?)`: `rows` groups of `width` placeholders. */
function placeholderRows(rows: number, width: number): string {
  const one = `(${Array.from({ length: width }, () => "?").join(", ")})`;
  return Array.from({ length: rows }, () => one).join(", ");
}

interface RowStatement {
  text: string;
  columns: Column[];
}

const rowTexts = new WeakMap<Table, Map<string, RowStatement>>();
/** Column sets remembered per table; a client cycling through more only costs rebuilding. */
const MAX_ROW_TEXTS = 256;

/** The statement of `kind` for these columns of `table`, built once per column set. */
function rowStatement(table: Table, kind: "insert" | "update", names: readonly string[]): RowStatement {
  const key = `${kind}:${names.join(",")}`;
  let texts = rowTexts.get(table);
  if (!texts) rowTexts.set(table, (texts = new Map()));
  let statement = texts.get(key);
  if (!statement) {
    if (texts.size >= MAX_ROW_TEXTS) texts.clear();
    const all = getTableColumns(table) as Record<string, Column>;
    const columns = names.map((name) => {
      const found = all[name];
      if (!found) throw new Error(`${getTableName(table)} has no column ${name}`);
      return found;
    });
    const quoted = columns.map((c) => `\`${c.name}\``);
    const text = kind === "insert"
      ? `INSERT INTO \`${getTableName(table)}\` (${quoted.join(", ")}) VALUES ${placeholderRows(1, columns.length)}`
      : `UPDATE \`${getTableName(table)}\` SET ${quoted.map((c) => `${c} = ?`).join(", ")} WHERE company_id = ? AND id = ?`;
    texts.set(key, (statement = { text, columns }));
  }
  return statement;
}

/** The values as drizzle would send them: dates, JSON and decimals mapped by their columns. */
function driverValues(statement: RowStatement, names: readonly string[], values: Record<string, unknown>): unknown[] {
  return statement.columns.map((column, index) => {
    const value = values[names[index]!];
    return value === null ? null : column.mapToDriverValue(value);
  });
}

const given = (values: Record<string, unknown>): string[] => Object.keys(values).filter((name) => values[name] !== undefined);

/** Inserts one row of `table` with exactly these columns (by property name; undefined ones left out). */
export async function insertRow(db: Executor, table: Table, values: Record<string, unknown>): Promise<ResultSetHeader> {
  const names = given(values);
  const statement = rowStatement(table, "insert", names);
  return executeShaped(db, statement.text, driverValues(statement, names, values));
}

/** Sets these columns of the company's row `id` of `table`. */
export async function updateRow(db: Executor, table: Table, companyId: number, id: number, values: Record<string, unknown>): Promise<ResultSetHeader> {
  const names = given(values);
  const statement = rowStatement(table, "update", names);
  return executeShaped(db, statement.text, [...driverValues(statement, names, values), companyId, id]);
}
