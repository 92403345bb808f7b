// Generic reads and writes of a resource's rows, always scoped to one company.
import { and, asc, count, eq, getTableName, gte, inArray, isNull, like, or, sql, type SQL } from "drizzle-orm";
import type { MySqlColumn } from "drizzle-orm/mysql-core";
import type { Executor } from "../db/client.ts";
import { executePrepared, insertRow, updateRow } from "../db/statements.ts";
import type { ResourceDefinition, ResourceTable, StoredRecord } from "./definition.ts";
import { hasTimestamps, readableFieldNames } from "./fields.ts";

export interface Scope {
  companyId: number;
  /** The parent record's id for a sub-collection (a rental's equipment). */
  parentId?: number;
}

export interface ListCriteria {
  limit: number;
  offset: number;
  q?: string;
  status?: string;
  filters: Record<string, number | string>;
  fields: readonly string[];
  /** Only records changed at or after this moment. */
  updatedSince?: Date;
  /** Deleted records too, each with its `deleted_at`. */
  includeDeleted?: boolean;
}

/** A column of a resource table by name; a name the table lacks is a bug in a definition. */
export function column(table: ResourceTable, name: string): MySqlColumn {
  const found = Object.hasOwn(table, name) ? table[name] : undefined;
  if (!found) throw new Error(`column ${name} is not in the table`);
  return found;
}

/** Tables whose records are soft-deleted (lookups are never deleted). */
export const hasSoftDelete = (table: ResourceTable): boolean => Object.hasOwn(table, "deleted_at");

function scopeConditions(def: ResourceDefinition, scope: Scope, includeDeleted = false): SQL[] {
  const conditions = [eq(column(def.table, "company_id"), scope.companyId)];
  if (hasSoftDelete(def.table) && !includeDeleted) conditions.push(isNull(column(def.table, "deleted_at")));
  if (def.parent && scope.parentId !== undefined) conditions.push(eq(column(def.table, def.parent.column), scope.parentId));
  return conditions;
}

const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (char) => `\\${char}`);

function listConditions(def: ResourceDefinition, scope: Scope, criteria: ListCriteria): SQL | undefined {
  const conditions = scopeConditions(def, scope, criteria.includeDeleted);
  if (criteria.updatedSince !== undefined) conditions.push(gte(column(def.table, "updated_at"), criteria.updatedSince));
  if (criteria.status !== undefined) conditions.push(eq(column(def.table, "status"), criteria.status));
  for (const [name, value] of Object.entries(criteria.filters)) conditions.push(eq(column(def.table, name), value));
  if (criteria.q !== undefined && def.search.length > 0) {
    const pattern = `%${escapeLike(criteria.q)}%`;
    conditions.push(or(...def.search.map((name) => like(column(def.table, name), pattern)))!);
  }
  return and(...conditions);
}

function selection(def: ResourceDefinition, fields: readonly string[]): Record<string, MySqlColumn> {
  return Object.fromEntries(fields.map((name) => [name, column(def.table, name)]));
}

/** A row as the API shows it: timestamps as RFC 3339 UTC. */
export function toRecord(row: Record<string, unknown>): StoredRecord {
  const record: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) record[name] = value instanceof Date ? value.toISOString() : value;
  return record as StoredRecord;
}

/** The plain page (no filter, whole records) and its count, built once per executor and resource. */
const preparedPages = new WeakMap<Executor, Map<ResourceDefinition, ReturnType<typeof preparePage>>>();

function preparePage(db: Executor, def: ResourceDefinition) {
  const conditions = [eq(column(def.table, "company_id"), sql.placeholder("companyId"))];
  if (hasSoftDelete(def.table)) conditions.push(isNull(column(def.table, "deleted_at")));
  const where = and(...conditions);
  return {
    rows: db.select(selection(def, readableFieldNames(def))).from(def.table).where(where)
      .orderBy(asc(column(def.table, "id"))).limit(sql.placeholder("limit")).offset(sql.placeholder("offset")).prepare(),
    total: db.select({ total: count() }).from(def.table).where(where).prepare(),
  };
}

const isPlainPage = (def: ResourceDefinition, criteria: ListCriteria): boolean =>
  !def.parent && criteria.q === undefined && criteria.status === undefined && Object.keys(criteria.filters).length === 0 &&
  criteria.updatedSince === undefined && !criteria.includeDeleted && criteria.fields.length === readableFieldNames(def).length;

export async function listRecords(db: Executor, def: ResourceDefinition, scope: Scope, criteria: ListCriteria): Promise<{ rows: StoredRecord[]; total: number }> {
  if (isPlainPage(def, criteria)) {
    let pages = preparedPages.get(db);
    if (!pages) preparedPages.set(db, (pages = new Map()));
    let page = pages.get(def);
    if (!page) pages.set(def, (page = preparePage(db, def)));
    const [rows, totals] = await Promise.all([
      page.rows.execute({ companyId: scope.companyId, limit: criteria.limit, offset: criteria.offset }),
      page.total.execute({ companyId: scope.companyId }),
    ]);
    return { rows: (rows as Record<string, unknown>[]).map(toRecord), total: Number(totals[0]?.total ?? 0) };
  }
  const where = listConditions(def, scope, criteria);
  const [rows, totals] = await Promise.all([
    db.select(selection(def, criteria.includeDeleted ? [...criteria.fields, "deleted_at"] : criteria.fields)).from(def.table).where(where)
      .orderBy(asc(column(def.table, "id"))).limit(criteria.limit).offset(criteria.offset),
    db.select({ total: count() }).from(def.table).where(where),
  ]);
  return { rows: rows.map(toRecord), total: Number(totals[0]?.total ?? 0) };
}

/**
 * The whole-record read of one id (GET one, and the locked read of a PATCH): its text built once
 * per resource and sent as a prepared statement, whose binary rows skip the text protocol's
 * per-field parsing; each value is then mapped as drizzle maps it (booleans, decimals), and
 * dates already arrive as dates.
 */
const hotReads = new Map<ResourceDefinition, { text: string; locking: string; fields: [string, MySqlColumn][] }>();

function hotRead(def: ResourceDefinition): { text: string; locking: string; fields: [string, MySqlColumn][] } {
  let read = hotReads.get(def);
  if (!read) {
    const fields = readableFieldNames(def).map((name): [string, MySqlColumn] => [name, column(def.table, name)]);
    const live = hasSoftDelete(def.table) ? " AND `deleted_at` IS NULL" : "";
    const text = `SELECT ${fields.map(([name, col]) => `\`${col.name}\` AS \`${name}\``).join(", ")} FROM \`${getTableName(def.table)}\`
      WHERE \`company_id\` = ? AND \`id\` = ?${live} LIMIT 1`;
    hotReads.set(def, (read = { text, locking: `${text} FOR UPDATE`, fields }));
  }
  return read;
}

export async function findRecord(
  db: Executor, def: ResourceDefinition, scope: Scope, id: number,
  options: { fields?: readonly string[]; forUpdate?: boolean } = {},
): Promise<StoredRecord | undefined> {
  // The hot reads (GET one, and the locked read a PATCH starts with; whole record, no parent
  // scope): no query building per request.
  if (!options.fields && !def.parent) {
    const read = hotRead(def);
    const [row] = await executePrepared<Record<string, unknown>[]>(db, options.forUpdate ? read.locking : read.text, [scope.companyId, id]);
    if (!row) return undefined;
    const record: Record<string, unknown> = {};
    for (const [name, col] of read.fields) {
      const value = row[name];
      record[name] = value === null || value === undefined ? null : value instanceof Date ? value.toISOString() : col.mapFromDriverValue(value);
    }
    return record as StoredRecord;
  }
  const query = db.select(selection(def, options.fields ?? readableFieldNames(def))).from(def.table)
    .where(and(...scopeConditions(def, scope), eq(column(def.table, "id"), id))).limit(1);
  const rows = options.forUpdate ? await query.for("update") : await query;
  return rows[0] ? toRecord(rows[0]) : undefined;
}

/** The id of the company's live record of `def` whose unique `field` is `value` (locked with `forUpdate`). */
export async function findIdBy(db: Executor, def: ResourceDefinition, scope: Scope, field: string, value: string, options: { forUpdate?: boolean } = {}): Promise<number | undefined> {
  const query = db.select({ id: column(def.table, "id") }).from(def.table)
    .where(and(...scopeConditions(def, scope), eq(column(def.table, field), value))).limit(1);
  const rows = options.forUpdate ? await query.for("update") : await query;
  return rows[0] ? Number(rows[0].id) : undefined;
}

/** True when the company has a live record of `def` with this id (a sub-collection's parent). */
export async function recordExists(db: Executor, def: ResourceDefinition, companyId: number, id: number, options: { forUpdate?: boolean } = {}): Promise<boolean> {
  const query = db.select({ id: column(def.table, "id") }).from(def.table)
    .where(and(...scopeConditions(def, { companyId }), eq(column(def.table, "id"), id))).limit(1);
  const rows = options.forUpdate ? await query.for("update") : await query;
  return rows.length > 0;
}

/**
 * Inserts a record and returns it as a read would show it, without reading it back: the
 * timestamps are set here rather than by the column defaults, so they are known exactly.
 */
export async function insertRecord(db: Executor, def: ResourceDefinition, companyId: number, values: Record<string, unknown>, at = new Date()): Promise<StoredRecord> {
  const timestamps = hasTimestamps(def) ? { created_at: at, updated_at: at } : {};
  const result = await insertRow(db, def.table, { ...values, ...timestamps, company_id: companyId });
  const row: Record<string, unknown> = { id: Number(result.insertId), ...values, ...timestamps };
  return toRecord(Object.fromEntries(readableFieldNames(def).map((name) => [name, row[name] ?? null])));
}

/** Live records of `def` with these ids, in id order. */
export async function findRecords(db: Executor, def: ResourceDefinition, companyId: number, ids: readonly number[]): Promise<StoredRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db.select(selection(def, readableFieldNames(def))).from(def.table)
    .where(and(...scopeConditions(def, { companyId }), inArray(column(def.table, "id"), [...ids]))).orderBy(asc(column(def.table, "id")));
  return rows.map(toRecord);
}

/** Writes changed values; returns the updated_at it set, so the caller knows the record without reading it back. */
export async function updateRecord(db: Executor, def: ResourceDefinition, scope: Scope, id: number, values: Record<string, unknown>, at = new Date()): Promise<string> {
  await updateRow(db, def.table, scope.companyId, id, { ...values, updated_at: at });
  return at.toISOString();
}

/** Ids of live rows of `table` whose `columnName` equals `id`, narrowed by `where`; `forUpdate` locks them. */
export async function referencingIds(
  db: Executor, table: ResourceTable, companyId: number, columnName: string, id: number, where: Record<string, unknown> = {}, forUpdate = false,
): Promise<number[]> {
  const conditions = [eq(column(table, "company_id"), companyId), eq(column(table, columnName), id)];
  if (hasSoftDelete(table)) conditions.push(isNull(column(table, "deleted_at")));
  for (const [name, value] of Object.entries(where)) conditions.push(eq(column(table, name), value));
  const query = db.select({ id: column(table, "id") }).from(table).where(and(...conditions)).orderBy(asc(column(table, "id")));
  const rows = forUpdate ? await query.for("update") : await query;
  return rows.map((row) => Number(row.id));
}

export async function softDelete(db: Executor, table: ResourceTable, companyId: number, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  const now = new Date();
  const values: Record<string, unknown> = { deleted_at: now, updated_at: now };
  if (Object.hasOwn(table, "live")) values.live = null;
  await db.update(table).set(values).where(and(eq(column(table, "company_id"), companyId), inArray(column(table, "id"), [...ids])));
}
