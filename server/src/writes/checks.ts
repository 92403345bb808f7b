// The checks a write must pass beyond its body's shape: references, uniqueness, transitions.
import { and, eq, isNull, ne, sql, type SQL } from "drizzle-orm";
import type { MySqlColumn } from "drizzle-orm/mysql-core";
import type { Company } from "../auth/company.ts";
import type { Executor } from "../db/client.ts";
import { databaseErrorKind } from "../db/errors.ts";
import { ApiError, type FieldError } from "../http/problem.ts";
import type { FieldSpec, ResourceDefinition, ResourceTable } from "../resources/definition.ts";
import { uniqueFields, writableFields } from "../resources/fields.ts";
import { definitionOf } from "../resources/registry.ts";
import { column, hasSoftDelete } from "../resources/store.ts";

/**
 * A read whose rows stay share-locked until commit: a concurrent delete of a referenced
 * record either waits for this write (and then sees what it wrote) or is seen by it.
 * LOCK IN SHARE MODE, because MariaDB does not know FOR SHARE.
 */
async function selectShared(db: Executor, query: { getSQL(): SQL }): Promise<Record<string, unknown>[]> {
  const [rows] = await db.execute(sql`${query.getSQL()} lock in share mode`);
  return rows as unknown as Record<string, unknown>[];
}

async function checkReference(db: Executor, company: Company, name: string, spec: FieldSpec & { type: "ref" }, id: number): Promise<FieldError | undefined> {
  const target = definitionOf(spec.target);
  if (!company.addons.has(target.addon)) {
    return { field: name, code: "invalid_reference", message: `${name} points at ${target.name}, which needs the ${target.addon} add-on your company does not have.` };
  }
  const table: ResourceTable = target.table;
  const conditions = [eq(column(table, "company_id"), company.id), eq(column(table, "id"), id)];
  if (hasSoftDelete(table)) conditions.push(isNull(column(table, "deleted_at")));
  const columns: Record<string, MySqlColumn> = { id: column(table, "id") };
  if (spec.requiredStatus || spec.refusedStatus) columns.status = column(table, "status");
  const [found] = await selectShared(db, db.select(columns).from(table).where(and(...conditions)).limit(1));
  if (!found) return { field: name, code: "unknown_reference", message: `No ${target.name} record with id ${id} exists in your company.` };
  if (spec.requiredStatus && found.status !== spec.requiredStatus) {
    return { field: name, code: "invalid_reference", message: `The ${target.name} record ${id} is ${String(found.status)}; it must be ${spec.requiredStatus}.` };
  }
  if (spec.refusedStatus && found.status === spec.refusedStatus) {
    return { field: name, code: "invalid_reference", message: `The ${target.name} record ${id} is ${spec.refusedStatus}; it cannot be used here.` };
  }
  return undefined;
}

/**
 * Every reference being set must name a live record of the caller's company, in a status the
 * field accepts, of a resource the company still has the add-on for. Read-only references (a
 * rental's equipment, from the path) are checked too.
 */
export async function checkReferences(db: Executor, def: ResourceDefinition, company: Company, values: Record<string, unknown>): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const [name, spec] of [...writableFields(def), ...Object.entries(def.readOnly)]) {
    const id = values[name];
    if (spec.type !== "ref" || typeof id !== "number") continue;
    const error = await checkReference(db, company, name, spec, id);
    if (error) errors.push(error);
  }
  return errors;
}

export function uniqueViolation(def: ResourceDefinition, field: string, value: unknown, otherId?: number): ApiError {
  const other = otherId === undefined ? "another live record" : `${def.singular.toLowerCase()} ${otherId}`;
  return new ApiError(409, "unique_violation", `${field} "${String(value)}" is already used by ${other}.`, [
    { field, code: "unique_violation", message: `${field} must be unique among your company's live ${def.name}.` },
  ]);
}

/** Unique fields (code, serial_number) may not repeat among the company's live records. */
export async function checkUnique(db: Executor, def: ResourceDefinition, companyId: number, values: Record<string, unknown>, exceptId?: number): Promise<void> {
  for (const name of uniqueFields(def)) {
    const value = values[name];
    if (value === null || value === undefined) continue;
    const conditions = [eq(column(def.table, "company_id"), companyId), eq(column(def.table, name), value), isNull(column(def.table, "deleted_at"))];
    if (exceptId !== undefined) conditions.push(ne(column(def.table, "id"), exceptId));
    const [clash] = await db.select({ id: column(def.table, "id") }).from(def.table).where(and(...conditions)).limit(1);
    if (clash) throw uniqueViolation(def, name, value, Number(clash.id));
  }
}

/** Runs a write, turning a duplicate-key refusal of a unique field into 409 unique_violation. */
export async function guardUnique<T>(def: ResourceDefinition, values: Record<string, unknown>, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    // Two writes racing for one code both pass the check; the unique index stops the second.
    // The index named in the error (projects_code, workers_external_id) tells which field clashed.
    const message = String((error as { cause?: { sqlMessage?: unknown } }).cause?.sqlMessage ?? (error as { sqlMessage?: unknown }).sqlMessage ?? "");
    const candidates = uniqueFields(def).filter((name) => values[name] !== undefined && values[name] !== null);
    const field = candidates.find((name) => message.includes(`_${name}'`)) ?? candidates[0];
    if (field && databaseErrorKind(error) === "duplicate") throw uniqueViolation(def, field, values[field]);
    throw error;
  }
}

/** The status a create starts in must be one of the definition's initial statuses. */
export function checkInitialStatus(def: ResourceDefinition, status: unknown): void {
  if (!def.status || status === undefined || def.status.initial.includes(status as string)) return;
  throw new ApiError(409, "invalid_transition", `A new ${def.singular.toLowerCase()} starts in ${def.status.initial.join(" or ")}, not ${String(status)}.`);
}

export function checkTransition(def: ResourceDefinition, id: number, from: unknown, to: unknown): void {
  if (!def.status?.transitions || to === undefined || from === to) return;
  const allowed = def.status.transitions[from as string] ?? [];
  if (allowed.includes(to as string)) return;
  const next = allowed.length ? `From ${String(from)} it may go to ${allowed.join(", ")}.` : `${String(from)} is final.`;
  throw new ApiError(409, "invalid_transition", `${def.singular} ${id} cannot go from ${String(from)} to ${String(to)}. ${next}`);
}
