// The statements that write a resource's records, built from its definition: inserts of many rows
// in one statement, updates of one or many records, soft deletes. Values are mapped to what the
// driver sends as drizzle maps them (dates, decimals, booleans).
import { getTableColumns, getTableName, type Column } from "drizzle-orm";
import { sqlLiteral, sqlRows } from "../db/sql.ts";
import { rowsStatement, type Statement } from "../db/write-transaction.ts";
import type { ResourceDefinition, ResourceTable, StoredRecord } from "../resources/definition.ts";
import { hasTimestamps, writableFields } from "../resources/fields.ts";
import { hasSoftDelete } from "../resources/store.ts";
import { guardedVersion } from "./row-versions.ts";

interface Shape {
  table: string;
  /** [field name, column] of every column a new record sets, in statement order. */
  columns: [string, Column][];
  /** The fields an update of many records sets (everything but the keys and created_at). */
  updatable: string[];
}

const shapes = new Map<ResourceDefinition, Shape>();

function shapeOf(def: ResourceDefinition): Shape {
  let shape = shapes.get(def);
  if (!shape) {
    const all = getTableColumns(def.table) as Record<string, Column>;
    const names = new Set([
      "id",
      "company_id",
      ...Object.keys(def.readOnly),
      ...(def.parent ? [def.parent.column] : []),
      ...writableFields(def).map(([name]) => name),
    ]);
    if (hasTimestamps(def)) names.add("created_at").add("updated_at");
    if (Object.hasOwn(all, "live")) names.add("live");
    const columns = [...names].map((name): [string, Column] => [name, all[name]!]);
    const updatable = [...names].filter(
      (name) => !["id", "company_id", "created_at", "live"].includes(name),
    );
    shape = { table: getTableName(def.table), columns, updatable };
    shapes.set(def, shape);
  }
  return shape;
}

const quote = (name: string): string => `\`${name}\``;

function driverValue(column: Column, value: unknown): unknown {
  return value === null || value === undefined ? null : column.mapToDriverValue(value);
}

/** A record as the database stores it: `live` 1, timestamps as dates. */
export interface NewRow {
  id: number;
  companyId: number;
  values: Record<string, unknown>;
  at: Date;
}

/** One INSERT of every new record (all of one resource), its values written into its text. */
export function insertRecords(def: ResourceDefinition, rows: readonly NewRow[]): Statement {
  const { table, columns } = shapeOf(def);
  // Each row's text built directly (a batch's 500 rows): the keys, stamps and `live` as they are,
  // each value through its column's mapping.
  const texts: string[] = [];
  let at: Date | undefined;
  let stamp = "";
  for (const row of rows) {
    if (row.at !== at) {
      at = row.at;
      stamp = sqlLiteral(at.toISOString().replace("T", " ").replace("Z", ""));
    }
    let text = "(";
    for (const [index, [name, column]] of columns.entries()) {
      if (index > 0) text += ", ";
      if (name === "id") text += sqlLiteral(row.id);
      else if (name === "company_id") text += sqlLiteral(row.companyId);
      else if (name === "created_at" || name === "updated_at") text += stamp;
      else if (name === "live") text += "1";
      else text += sqlLiteral(driverValue(column, row.values[name]));
    }
    texts.push(`${text})`);
  }
  return rowsStatement(
    `INSERT INTO ${quote(table)} ` +
      `(${columns.map(([, column]) => quote(column.name)).join(", ")}) VALUES `,
    texts,
  );
}

/**
 * Sets the changed fields and updated_at (`at`) of one record; with `read`, the updated_at the write
 * read, only if the row is still the one read (writes/row-versions.ts), else the statement fails.
 */
export function updateRecord(
  def: ResourceDefinition,
  companyId: number,
  id: number,
  changed: Record<string, unknown>,
  at: Date,
  read?: unknown,
): Statement {
  const { table, columns } = shapeOf(def);
  const stamp = columns.find(([name]) => name === "updated_at");
  const set = columns.filter(([name]) => name in changed && name !== "updated_at");
  const assignments = set.map(([, column]) => `${quote(column.name)} = ?`);
  const values = set.map(([name, column]) => driverValue(column, changed[name]));
  if (stamp && read !== undefined) {
    const [, column] = stamp;
    assignments.unshift(guardedVersion(quote(column.name), hasSoftDelete(def.table)));
    values.unshift(driverValue(column, new Date(String(read))), driverValue(column, at));
  } else if (stamp) {
    assignments.unshift(`${quote(stamp[1].name)} = ?`);
    values.unshift(driverValue(stamp[1], at));
  }
  return {
    text: `UPDATE ${quote(table)} SET ${assignments.join(", ")} WHERE company_id = ? AND id = ?`,
    values: [...values, companyId, id],
  };
}

/**
 * Writes many records whole in one statement: each row names an existing record by its key, so
 * `ON DUPLICATE KEY UPDATE` updates it (the rows were read and locked by this transaction), its
 * updated_at the record's own.
 */
export function updateRecords(
  def: ResourceDefinition,
  companyId: number,
  records: readonly StoredRecord[],
): Statement {
  const { table, columns, updatable } = shapeOf(def);
  const written = columns.filter(([name]) => name !== "live");
  const values = records.map((record) =>
    written.map(([name, column]) => {
      if (name === "company_id") return companyId;
      if (name === "updated_at") return driverValue(column, new Date(String(record.updated_at)));
      if (name === "created_at") return driverValue(column, new Date(String(record.created_at)));
      return driverValue(column, record[name]);
    }),
  );
  const updates = written
    .filter(([name]) => updatable.includes(name))
    .map(([, column]) => `${quote(column.name)} = VALUES(${quote(column.name)})`);
  return rowsStatement(
    `INSERT INTO ${quote(table)} ` +
      `(${written.map(([, column]) => quote(column.name)).join(", ")}) VALUES `,
    sqlRows(values),
    ` ON DUPLICATE KEY UPDATE ${updates.join(", ")}`,
  );
}

/** Empties `fields` of these records, so the statement after it can hand their values on among them. */
export function clearValues(
  def: ResourceDefinition,
  companyId: number,
  ids: readonly number[],
  fields: readonly string[],
): Statement {
  const { table, columns } = shapeOf(def);
  const set = columns.filter(([name]) => fields.includes(name));
  return {
    text:
      `UPDATE ${quote(table)} SET ` +
      `${set.map(([, column]) => `${quote(column.name)} = NULL`).join(", ")} WHERE ` +
      `company_id = ? AND id IN (?)`,
    values: [companyId, [...ids]],
  };
}

/** Marks records deleted: gone from the API, kept for history, out of the unique keys. */
export const softDeleteRecords = (
  table: ResourceTable,
  companyId: number,
  ids: readonly number[],
  at: Date,
): Statement => setDeleted(table, companyId, ids, at, true);

/** Brings soft-deleted records back: live again, into the unique keys, with the values they kept. */
export const restoreRecords = (
  table: ResourceTable,
  companyId: number,
  ids: readonly number[],
  at: Date,
): Statement => setDeleted(table, companyId, ids, at, false);

/** Sets deleted_at (now, or NULL) and `live` with it, stamping updated_at at the same instant. */
function setDeleted(
  table: ResourceTable,
  companyId: number,
  ids: readonly number[],
  at: Date,
  deleted: boolean,
): Statement {
  const name = getTableName(table);
  if (!hasSoftDelete(table)) throw new Error(`${name} has no deleted_at column`);
  const columns = getTableColumns(table) as Record<string, Column>;
  const stamp = columns.updated_at!.mapToDriverValue(at);
  const live = Object.hasOwn(table, "live") ? `, live = ${deleted ? "NULL" : "1"}` : "";
  return {
    text:
      `UPDATE ${quote(name)} SET deleted_at = ${deleted ? "?" : "NULL"}, updated_at = ?${live} ` +
      "WHERE company_id = ? AND id IN (?)",
    values: deleted ? [stamp, stamp, companyId, [...ids]] : [stamp, companyId, [...ids]],
  };
}
