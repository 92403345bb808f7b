// The write path's fixed statements, sent straight to the driver as prepared statements: each
// text is prepared once per connection (mysql2 keeps them) and afterwards only its values travel.
// Drizzle builds a statement's SQL anew on every call and mysql2 then escapes each value into it,
// which was about a quarter of a busy server's CPU under creates. Everything else keeps drizzle.
import { getTableColumns, getTableName, type Column, type Table } from "drizzle-orm";
import type { ResultSetHeader } from "mysql2";
import type { Executor } from "./client.ts";
import type { GuardedConnection, GuardedPool } from "./pool.ts";

/** The driver under a drizzle handle: the guarded pool of the database, or a transaction's connection. */
function driverOf(db: Executor): GuardedConnection | GuardedPool {
  return (db as unknown as { session: { client: GuardedConnection | GuardedPool } }).session.client;
}

/** Runs a statement whose text never changes with its values (`?` placeholders, none undefined). */
export async function executePrepared<T = ResultSetHeader>(db: Executor, text: string, values: readonly unknown[]): Promise<T> {
  const [result] = await driverOf(db).execute(text, values);
  return result as T;
}

/** `(?, ?, ?), (?, ?, ?)`: `rows` groups of `width` placeholders. */
export function placeholderRows(rows: number, width: number): string {
  const one = `(${Array.from({ length: width }, () => "?").join(", ")})`;
  return Array.from({ length: rows }, () => one).join(", ");
}

const insertTexts = new WeakMap<Table, Map<string, { text: string; columns: Column[] }>>();

/**
 * Inserts one row of `table` with exactly these columns (by property name), each value mapped to
 * the driver as drizzle maps it (dates, JSON, decimals); the text is built once per column set.
 */
export async function insertRow(db: Executor, table: Table, values: Record<string, unknown>): Promise<ResultSetHeader> {
  const names = Object.keys(values).filter((name) => values[name] !== undefined);
  const key = names.join(",");
  let texts = insertTexts.get(table);
  if (!texts) insertTexts.set(table, (texts = new Map()));
  let insert = texts.get(key);
  if (!insert) {
    const all = getTableColumns(table) as Record<string, Column>;
    const columns = names.map((name) => {
      const found = all[name];
      if (!found) throw new Error(`${getTableName(table)} has no column ${name}`);
      return found;
    });
    const text = `INSERT INTO \`${getTableName(table)}\` (${columns.map((c) => `\`${c.name}\``).join(", ")}) VALUES ${placeholderRows(1, columns.length)}`;
    texts.set(key, (insert = { text, columns }));
  }
  const driverValues = insert.columns.map((column, index) => {
    const value = values[names[index]!];
    return value === null ? null : column.mapToDriverValue(value);
  });
  return executePrepared(db, insert.text, driverValues);
}
