// Generic reads and writes of a resource's rows, always scoped to one company.
import { and, asc, eq, getTableName, inArray, isNull, type SQL } from "drizzle-orm";
import type { MySqlColumn } from "drizzle-orm/mysql-core";
import type { Executor } from "../db/client.ts";
import { executePrepared } from "../db/sql.ts";
import type { ResourceDefinition, ResourceTable, StoredRecord } from "./definition.ts";
import { readableFieldNames } from "./fields.ts";

export interface Scope {
  companyId: number;
  /** The parent record's id for a sub-collection (a rental's equipment). */
  parentId?: number;
}

/** A column of a resource table by name; a name the table lacks is a bug in a definition. */
export function column(table: ResourceTable, name: string): MySqlColumn {
  const found = Object.hasOwn(table, name) ? table[name] : undefined;
  if (!found) throw new Error(`column ${name} is not in the table`);
  return found;
}

/** Tables whose records are soft-deleted: every resource's (rentals, lookups included). */
export const hasSoftDelete = (table: ResourceTable): boolean => Object.hasOwn(table, "deleted_at");

/** The company, live records only (unless `includeDeleted`), and a sub-collection's parent. */
export function scopeConditions(
  def: ResourceDefinition,
  scope: Scope,
  includeDeleted = false,
): SQL[] {
  const conditions = [eq(column(def.table, "company_id"), scope.companyId)];
  if (hasSoftDelete(def.table) && !includeDeleted)
    conditions.push(isNull(column(def.table, "deleted_at")));
  if (def.parent && scope.parentId !== undefined)
    conditions.push(eq(column(def.table, def.parent.column), scope.parentId));
  return conditions;
}

/** The columns of these fields, by field name. */
export function selection(
  def: ResourceDefinition,
  fields: readonly string[],
): Record<string, MySqlColumn> {
  return Object.fromEntries(fields.map((name) => [name, column(def.table, name)]));
}

/** A row as the API shows it: timestamps as RFC 3339 UTC. */
export function toRecord(row: Record<string, unknown>): StoredRecord {
  const record: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row))
    record[name] = value instanceof Date ? value.toISOString() : value;
  return record as StoredRecord;
}

/**
 * A row of a whole-record read as the API shows the record, whichever protocol read it (a prepared
 * statement's binary rows, or the text rows of a write's look-ups): each value mapped as drizzle
 * maps it (booleans, decimals); dates arrive as dates and become ISO text.
 */
export function recordFromRow(
  fields: readonly [string, MySqlColumn][],
  row: Record<string, unknown>,
): StoredRecord {
  const record: Record<string, unknown> = {};
  for (const [name, col] of fields) {
    const value = row[name];
    record[name] =
      value === null || value === undefined
        ? null
        : value instanceof Date
          ? value.toISOString()
          : col.mapFromDriverValue(value);
  }
  return record as StoredRecord;
}

/** The whole record's columns, each aliased to its field name: the select list of the hot reads. */
export function wholeRecordColumns(def: ResourceDefinition): {
  list: string;
  fields: [string, MySqlColumn][];
} {
  const fields = readableFieldNames(def).map((name): [string, MySqlColumn] => [
    name,
    column(def.table, name),
  ]);
  return { list: fields.map(([name, col]) => `\`${col.name}\` AS \`${name}\``).join(", "), fields };
}

/**
 * The whole-record read of one id (GET one, and the locked read of a PATCH): its text built once
 * per resource and sent as a prepared statement, whose binary rows skip the text protocol's
 * per-field parsing.
 */
const hotReads = new Map<
  ResourceDefinition,
  { text: string; locking: string; fields: [string, MySqlColumn][] }
>();

function hotRead(def: ResourceDefinition): {
  text: string;
  locking: string;
  fields: [string, MySqlColumn][];
} {
  let read = hotReads.get(def);
  if (!read) {
    const { list, fields } = wholeRecordColumns(def);
    const live = hasSoftDelete(def.table) ? " AND `deleted_at` IS NULL" : "";
    const text = `SELECT ${list} FROM \`${getTableName(def.table)}\`
      WHERE \`company_id\` = ? AND \`id\` = ?${live} LIMIT 1`;
    read = { text, locking: `${text} FOR UPDATE`, fields };
    hotReads.set(def, read);
  }
  return read;
}

export async function findRecord(
  db: Executor,
  def: ResourceDefinition,
  scope: Scope,
  id: number,
  options: { fields?: readonly string[]; forUpdate?: boolean } = {},
): Promise<StoredRecord | undefined> {
  // The hot reads (GET one, and the locked read a PATCH starts with; whole record, no parent
  // scope): no query building per request.
  if (!options.fields && !def.parent) {
    const read = hotRead(def);
    const [row] = await executePrepared<Record<string, unknown>[]>(
      db,
      options.forUpdate ? read.locking : read.text,
      [scope.companyId, id],
    );
    return row ? recordFromRow(read.fields, row) : undefined;
  }
  const query = db
    .select(selection(def, options.fields ?? readableFieldNames(def)))
    .from(def.table)
    .where(and(...scopeConditions(def, scope), eq(column(def.table, "id"), id)))
    .limit(1);
  const rows = options.forUpdate ? await query.for("update") : await query;
  return rows[0] ? toRecord(rows[0]) : undefined;
}

/** True when the company has a live record of `def` with this id (a sub-collection's parent). */
export async function recordExists(
  db: Executor,
  def: ResourceDefinition,
  companyId: number,
  id: number,
  options: { forUpdate?: boolean } = {},
): Promise<boolean> {
  const query = db
    .select({ id: column(def.table, "id") })
    .from(def.table)
    .where(and(...scopeConditions(def, { companyId }), eq(column(def.table, "id"), id)))
    .limit(1);
  const rows = options.forUpdate ? await query.for("update") : await query;
  return rows.length > 0;
}

/** Live records of `def` with these ids, in id order. */
export async function findRecords(
  db: Executor,
  def: ResourceDefinition,
  companyId: number,
  ids: readonly number[],
): Promise<StoredRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select(selection(def, readableFieldNames(def)))
    .from(def.table)
    .where(and(...scopeConditions(def, { companyId }), inArray(column(def.table, "id"), [...ids])))
    .orderBy(asc(column(def.table, "id")));
  return rows.map(toRecord);
}

/** Ids of live rows of `table` whose `columnName` equals `id`, narrowed by `where`; `forUpdate` locks them. */
export async function referencingIds(
  db: Executor,
  table: ResourceTable,
  companyId: number,
  columnName: string,
  id: number,
  where: Record<string, unknown> = {},
  forUpdate = false,
): Promise<number[]> {
  const conditions = [
    eq(column(table, "company_id"), companyId),
    eq(column(table, columnName), id),
  ];
  if (hasSoftDelete(table)) conditions.push(isNull(column(table, "deleted_at")));
  for (const [name, value] of Object.entries(where))
    conditions.push(eq(column(table, name), value));
  const query = db
    .select({ id: column(table, "id") })
    .from(table)
    .where(and(...conditions))
    .orderBy(asc(column(table, "id")));
  const rows = forUpdate ? await query.for("update") : await query;
  return rows.map((row) => Number(row.id));
}
