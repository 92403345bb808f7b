// The rules one record write must pass, decided in memory from what was read for the whole set of
// writes (writes/lookups.ts): the body's fields, date order, references, the initial status or the
// transition, the resource's own rules, unique fields and the plan quota. The same functions serve
// a single create, a PATCH, an upsert and every item of a batch, in that order of checks.
import type { Company } from "../auth/company.ts";
import {
  invalidInitialStatus,
  invalidTransition,
  uniqueViolation,
  validationFailed,
} from "../refusals/catalogue.ts";
import type { FieldError } from "../refusals/refusal.ts";
import type { FieldSpec, ResourceDefinition, StoredRecord } from "../resources/definition.ts";
import { createDefaults, referenceFields, uniqueFields } from "../resources/fields.ts";
import { checkDateOrder, validateBody } from "../resources/validation.ts";
import { customUniqueName, shownValues, uniqueTextOf } from "../resources/custom-fields.ts";
import type { FieldChange } from "../events/changes.ts";
import type { Lookups } from "./lookups.ts";
import type { QuotaLedger } from "./quotas.ts";
import type { Holder, UniqueValues } from "./unique-values.ts";

function heldBy(def: ResourceDefinition, holder: Holder): string {
  return "id" in holder
    ? `${def.singular.toLowerCase()} ${holder.id}`
    : "item" in holder
      ? `item ${holder.item} of this batch`
      : "a record an earlier batch of this dry-run creates";
}

/** What the rules of one write read besides its body. */
export interface RuleContext {
  def: ResourceDefinition;
  company: Company;
  lookups: Lookups;
  unique: UniqueValues;
}

function referenceError(
  ctx: RuleContext,
  name: string,
  spec: FieldSpec & { type: "ref" },
  id: number,
): FieldError | undefined {
  const target = spec.target;
  if (!ctx.company.addons.has(target.addon)) {
    return {
      field: name,
      code: "invalid_reference",
      message: `${name} points at ${target.name}, which needs the ${target.addon} add-on your company does not have.`,
    };
  }
  const found = ctx.lookups.reference(target.table, id);
  if (!found)
    return {
      field: name,
      code: "unknown_reference",
      message: `No ${target.name} record with id ${id} exists in your company.`,
    };
  if (spec.requiredStatus && found.status !== spec.requiredStatus) {
    return {
      field: name,
      code: "invalid_reference",
      message: `The ${target.name} record ${id} is ${String(found.status)}; it must be ${spec.requiredStatus}.`,
    };
  }
  if (spec.refusedStatus && found.status === spec.refusedStatus) {
    return {
      field: name,
      code: "invalid_reference",
      message: `The ${target.name} record ${id} is ${spec.refusedStatus}; it cannot be used here.`,
    };
  }
  return undefined;
}

/**
 * Every reference being set must name a live record of the caller's company, in a status the
 * field accepts, of a resource the company still has the add-on for. Read-only references (a
 * rental's equipment, from the path) are checked too.
 */
export function referenceErrors(ctx: RuleContext, values: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  for (const [name, spec] of referenceFields(ctx.def)) {
    const id = values[name];
    if (typeof id !== "number") continue;
    const error = referenceError(ctx, name, spec, id);
    if (error) errors.push(error);
  }
  return errors;
}

/** The status a create starts in must be one of the definition's initial statuses. */
function checkInitialStatus(def: ResourceDefinition, status: unknown): void {
  if (!def.status || status === undefined || def.status.initial.includes(status as string)) return;
  throw invalidInitialStatus(def.singular.toLowerCase(), def.status.initial, status);
}

function checkTransition(def: ResourceDefinition, id: number, from: unknown, to: unknown): void {
  if (!def.status?.transitions || to === undefined || from === to) return;
  const allowed = def.status.transitions[from as string] ?? [];
  if (!allowed.includes(to as string)) throw invalidTransition(def.singular, id, from, to, allowed);
}

/** Unique fields (code, serial_number, external_id) may not repeat among the company's live records. */
function checkUnique(ctx: RuleContext, values: Record<string, unknown>, self?: number): void {
  for (const field of uniqueFields(ctx.def)) {
    const holder = ctx.unique.holder(field, values[field]);
    if (holder && !("id" in holder && holder.id === self))
      throw uniqueViolation(field, values[field], heldBy(ctx.def, holder), ctx.def.name);
  }
}

/**
 * A create's record (defaults filled in, the parent's column set), or the refusal: field errors
 * all at once (422), then the initial status, unique fields and the quota.
 */
export function createRules(
  ctx: RuleContext,
  body: unknown,
  parent: Record<string, unknown>,
  quota: QuotaLedger,
): Record<string, unknown> {
  const { values, errors } = validateBody(ctx.def, body, false, ctx.lookups.customFields);
  const record = { ...createDefaults(ctx.def), ...values, ...parent };
  errors.push(...checkDateOrder(ctx.def, record), ...referenceErrors(ctx, record));
  if (errors.length > 0) throw validationFailed(errors);
  checkInitialStatus(ctx.def, record.status);
  checkUnique(ctx, record);
  checkCustomUnique(ctx, record.custom_fields);
  quota.take(ctx.def);
  return record;
}

export interface Update {
  /** Each field whose value changes, from and to. */
  changes: Record<string, FieldChange>;
  /** The changed fields' new values. */
  changed: Record<string, unknown>;
  /** The record with the changes applied (its updated_at still the stored one). */
  merged: StoredRecord;
}

/**
 * A PATCH of a stored record under every rule, or the refusal (frozen records, 422s, rules,
 * transitions, unique fields).
 */
export function updateRules(ctx: RuleContext, stored: StoredRecord, body: unknown): Update {
  const frozen = ctx.def.frozen?.(stored);
  if (frozen) throw frozen;
  const { values, errors } = validateBody(ctx.def, body, true, ctx.lookups.customFields);
  const changes: Record<string, FieldChange> = {};
  for (const [field, to] of Object.entries(values)) {
    if (field === "custom_fields") continue;
    if (stored[field] !== to) changes[field] = { from: stored[field] ?? null, to };
  }
  const custom = customChange(ctx, stored, values.custom_fields);
  const changed = Object.fromEntries(
    Object.entries(changes).map(([field, change]) => [field, change.to]),
  );
  if (custom) {
    changes.custom_fields = custom.change;
    changed.custom_fields = custom.values;
  }
  const merged: StoredRecord = { ...stored, ...changed };
  errors.push(...checkDateOrder(ctx.def, merged), ...referenceErrors(ctx, changed));
  if (errors.length > 0) throw validationFailed(errors);
  const ruleBroken = ctx.def.updateRule?.(stored, values);
  if (ruleBroken) throw ruleBroken;
  checkTransition(ctx.def, stored.id, stored.status, changed.status);
  checkUnique(ctx, changed, stored.id);
  if (custom) checkCustomUnique(ctx, custom.change.to as Record<string, unknown>, stored.id);
  return { changes, changed, merged };
}

/**
 * An update of a record the database does not hold yet (in a dry-run, one an earlier batch of the
 * same dry-run creates): the fields sent, their date order and references; rules that compare with
 * the stored record cannot apply.
 */
export function unseenUpdateRules(ctx: RuleContext, body: unknown): Record<string, unknown> {
  const { values, errors } = validateBody(ctx.def, body, true, ctx.lookups.customFields);
  errors.push(...checkDateOrder(ctx.def, values), ...referenceErrors(ctx, values));
  if (errors.length > 0) throw validationFailed(errors);
  return values;
}

/**
 * A restore of a deleted record, checked as its create would be: its references must still name live
 * records (422), its unique values must be free among the live records (409 naming the holder), and
 * the plan's quota must have room (402). Its values are the ones it kept; nothing else changes.
 */
export function restoreRules(ctx: RuleContext, stored: StoredRecord, quota: QuotaLedger): void {
  const errors = referenceErrors(ctx, stored);
  if (errors.length > 0) throw validationFailed(errors);
  checkUnique(ctx, stored, stored.id);
  checkCustomUnique(ctx, stored.custom_fields, stored.id);
  quota.take(ctx.def);
}

/**
 * What a PATCH's `custom_fields` changes, merged per key into the stored values: the keys whose
 * value changes (from, to) and the whole object the record then holds; undefined when none changes.
 */
function customChange(
  ctx: RuleContext,
  stored: StoredRecord,
  sent: unknown,
): { change: FieldChange; values: Record<string, unknown> } | undefined {
  if (sent === undefined) return undefined;
  const before = shownValues(ctx.lookups.customFields, stored.custom_fields);
  const from: Record<string, unknown> = {};
  const to: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(sent as Record<string, unknown>)) {
    if (before[key] === value) continue;
    from[key] = before[key];
    to[key] = value;
  }
  if (Object.keys(to).length === 0) return undefined;
  return { change: { from, to }, values: { ...before, ...to } };
}

/** A unique custom field's value may not repeat among the company's live records (409). */
function checkCustomUnique(ctx: RuleContext, values: unknown, self?: number): void {
  if (typeof values !== "object" || values === null) return;
  for (const field of ctx.lookups.customFields) {
    if (!field.unique) continue;
    const value = uniqueTextOf(field, (values as Record<string, unknown>)[field.key]);
    const name = customUniqueName(field.key);
    const holder = ctx.unique.holder(name, value);
    if (holder && !("id" in holder && holder.id === self))
      throw uniqueViolation(name, value, heldBy(ctx.def, holder), ctx.def.name);
  }
}

/** The unique custom values a record holds, by the name they are held under. */
export function customUniqueValues(
  ctx: RuleContext,
  values: unknown,
): [name: string, value: string | undefined][] {
  if (typeof values !== "object" || values === null) return [];
  // Asked for every item of a batch: a plain loop, nothing allocated when no field is unique.
  const held: [name: string, value: string | undefined][] = [];
  for (const field of ctx.lookups.customFields)
    if (field.unique)
      held.push([
        customUniqueName(field.key),
        uniqueTextOf(field, (values as Record<string, unknown>)[field.key]),
      ]);
  return held;
}
