// The checks a write must pass beyond its schema: references, uniqueness, transitions, quotas.
import { and, count, eq, isNull, ne, sql, type SQL } from "drizzle-orm";
import type { MySqlColumn } from "drizzle-orm/mysql-core";
import type { Company } from "../auth/company.ts";
import type { Executor } from "../db/client.ts";
import { companies } from "../db/schema.ts";
import { ApiError, type FieldError } from "../http/problem.ts";
import type { ResourceDefinition, ResourceTable } from "../resources/definition.ts";
import { writableFields } from "../resources/fields.ts";

const col = (table: ResourceTable, name: string): MySqlColumn => table[name]!;

/**
 * A read whose rows stay share-locked until commit: a concurrent delete of a referenced
 * record either waits for this write (and then sees what it wrote) or is seen by it.
 * LOCK IN SHARE MODE, because MariaDB does not know FOR SHARE.
 */
async function selectShared(db: Executor, query: { getSQL(): SQL }): Promise<Record<string, unknown>[]> {
  const [rows] = await db.execute(sql`${query.getSQL()} lock in share mode`);
  return rows as unknown as Record<string, unknown>[];
}

/**
 * Every reference being set must name a live record of the caller's company, in a status the
 * field accepts. Read-only references (a rental's equipment, from the path) are checked too.
 */
export async function checkReferences(db: Executor, def: ResourceDefinition, companyId: number, values: Record<string, unknown>): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const [name, spec] of [...writableFields(def), ...Object.entries(def.readOnly ?? {})]) {
    const id = values[name];
    if (spec.type !== "ref" || typeof id !== "number") continue;
    const { table, softDeleted, resource } = spec.target;
    const conditions = [eq(col(table, "company_id"), companyId), eq(col(table, "id"), id)];
    if (softDeleted) conditions.push(isNull(col(table, "deleted_at")));
    const columns: Record<string, MySqlColumn> = { id: col(table, "id") };
    if (spec.requiredStatus || spec.refusedStatus) columns.status = col(table, "status");
    const [found] = await selectShared(db, db.select(columns).from(table).where(and(...conditions)).limit(1));
    if (!found) {
      errors.push({ field: name, code: "unknown_reference", message: `No ${resource} record with id ${id} exists in your company.` });
    } else if (spec.requiredStatus && found.status !== spec.requiredStatus) {
      errors.push({ field: name, code: "invalid_reference", message: `The ${resource} record ${id} is ${String(found.status)}; it must be ${spec.requiredStatus}.` });
    } else if (spec.refusedStatus && found.status === spec.refusedStatus) {
      errors.push({ field: name, code: "invalid_reference", message: `The ${resource} record ${id} is ${spec.refusedStatus}; it cannot be used here.` });
    }
  }
  return errors;
}

/** Unique fields (code, serial_number) may not repeat among the company's live records. */
export async function checkUnique(db: Executor, def: ResourceDefinition, companyId: number, values: Record<string, unknown>, exceptId?: number): Promise<void> {
  for (const [name, spec] of Object.entries(def.fields)) {
    const value = values[name];
    if (spec.type !== "text" || !spec.unique || value === null || value === undefined) continue;
    const conditions = [eq(col(def.table, "company_id"), companyId), eq(col(def.table, name), value), isNull(col(def.table, "deleted_at"))];
    if (exceptId !== undefined) conditions.push(ne(col(def.table, "id"), exceptId));
    const [clash] = await db.select({ id: col(def.table, "id") }).from(def.table).where(and(...conditions)).limit(1);
    if (clash) throw uniqueViolation(def, name, value, Number(clash.id));
  }
}

export function uniqueViolation(def: ResourceDefinition, field: string, value: unknown, otherId?: number): ApiError {
  const other = otherId === undefined ? "another live record" : `${def.singular.toLowerCase()} ${otherId}`;
  return new ApiError(409, "unique_violation", `${field} "${String(value)}" is already used by ${other}.`, [
    { field, code: "unique_violation", message: `${field} must be unique among your company's live ${def.name}.` },
  ]);
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

/**
 * Refuses a create beyond the plan's quota. The company row is locked first, so creates of
 * one company queue here and the count each sees includes every earlier commit.
 */
export async function checkQuota(db: Executor, def: ResourceDefinition, company: Company): Promise<void> {
  if (!def.quota) return;
  const limit = company.limits[def.quota];
  if (limit === null) return;
  await db.select({ id: companies.id }).from(companies).where(eq(companies.id, company.id)).for("update");
  const [row] = await db.select({ used: count() }).from(def.table)
    .where(and(eq(col(def.table, "company_id"), company.id), isNull(col(def.table, "deleted_at"))));
  const used = Number(row?.used ?? 0);
  if (used >= limit) {
    throw new ApiError(402, "quota_exceeded", `Your ${company.plan} plan allows ${limit} live ${def.quota}; you have ${used}. Delete one or upgrade the plan.`, undefined, {}, { quota: { resource: def.quota, used, limit } });
  }
}

/** A MySQL duplicate-key error, possibly wrapped by drizzle. */
export function isDuplicateKey(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  if ("errno" in error && error.errno === 1062) return true;
  return "cause" in error && isDuplicateKey(error.cause);
}
