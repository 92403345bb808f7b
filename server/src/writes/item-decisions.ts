// How each item of a write of records decides, in order (write-records.ts reads, decides here, then
// plans in record-plan.ts): one function per case (a restore, an update of a record found, an
// upsert, an update of a record an earlier batch of the dry-run creates, a create), each returning
// the item's step. A case checks its item under the rules of item-rules.ts, which validate and
// normalise its values (createRules, updateRules, ...); builds the record as a read will show it
// (newRecord, leaveUpdated); and leaves its effect in the write's state (Decisions) for the items
// after it: the unique values it takes or frees, its quota slot, the record as it now is.
import {
  itemKeyReuse,
  notDeleted,
  notFound,
  nothingToMatch,
  validationFailed,
} from "../refusals/catalogue.ts";
import { Refusal } from "../refusals/refusal.ts";
import type { ResourceDefinition, StoredRecord } from "../resources/definition.ts";
import { shownValues } from "../resources/custom-fields.ts";
import { readableFieldNames, uniqueFields } from "../resources/fields.ts";
import { itemFingerprint, type ItemAction } from "./item-keys.ts";
import {
  customUniqueValues,
  createRules,
  restoreRules,
  unseenUpdateRules,
  updateRules,
  type RuleContext,
  type Update,
} from "./item-rules.ts";
import type { Lookups, Restorable } from "./lookups.ts";
import { WritePlan } from "./plan.ts";
import { checkIfMatch } from "./preconditions.ts";
import { QuotaLedger } from "./quotas.ts";
import type { ItemOutcome, RecordWrites } from "./record-writes.ts";
import { nextVersion } from "./row-versions.ts";
import { checkItemIfMatch, restoreItem, updateItem } from "./update-items.ts";

/** A record created by this write: its values (as later items leave them) and its id once known. */
export interface NewRecord {
  values: Record<string, unknown>;
  id: number | null;
}

/** A stored record this write changes: as it leaves it, and as it was read. */
export interface ChangedRecord {
  record: StoredRecord;
  /** The fields the write sets, with their values. */
  values: Record<string, unknown>;
  stored: StoredRecord;
  /** The updated_at it sets (writes/row-versions.ts). */
  version: Date;
}

/** What an item that writes decided: the source of its statements, its event and its key's binding. */
export interface Step {
  outcome: ItemOutcome & { record: StoredRecord; action: ItemAction };
  /** The record the item created, or the new record it updated; stored records have their id. */
  target?: NewRecord;
}

/** A record items name (by external id or id) as the items so far leave it: stored, or created here. */
interface Known {
  record: StoredRecord;
  created?: NewRecord;
  /** The item that created it. */
  createdBy?: number;
}

/** The write's state as the items decided so far leave it, and what they decided. */
export interface Decisions {
  writes: RecordWrites;
  def: ResourceDefinition;
  rules: RuleContext;
  quota: QuotaLedger;
  /** Values every create sets from the path (a sub-collection's parent). */
  fixed: Record<string, unknown>;
  restorable: Restorable | undefined;
  at: Date;
  /** `at` as records show it, once a create or restore needs it (stampOf). */
  stamp: string | undefined;
  /** Every item's outcome, in item order. */
  outcomes: ItemOutcome[];
  /** What each item that writes decided, in item order. */
  steps: Step[];
  /** The records created, in item order. */
  created: NewRecord[];
  /** Stored records this write changes, by id. */
  changed: Map<number, ChangedRecord>;
  /** The records restored, in item order. */
  restored: StoredRecord[];
  /** The records items named, by external id (upserts) or id (updates): see known(). */
  known: Map<string | number, Known>;
  /** The fingerprint of each keyed item that is decided, by index. */
  fingerprints: string[] | undefined;
  /** What the write will change; the items decide only the item keys it replaces. */
  plan: WritePlan;
}

/** Decides every item, in order, on what was read for them all. */
export function decideItems(
  writes: RecordWrites,
  lookups: Lookups,
  fixed: Record<string, unknown>,
  restorable: Restorable | undefined,
): Decisions {
  const { def, company, preceding } = writes;
  const used = lookups.quotaUsed;
  const d: Decisions = {
    writes,
    def,
    rules: { def, company, lookups, unique: lookups.unique },
    quota: new QuotaLedger(
      company,
      used === undefined ? undefined : used + (preceding?.created ?? 0),
    ),
    fixed,
    restorable,
    at: new Date(),
    stamp: undefined,
    outcomes: [],
    steps: [],
    created: [],
    changed: new Map(),
    restored: [],
    known: new Map(),
    fingerprints: writes.itemKeys ? [] : undefined,
    plan: new WritePlan(),
  };
  if (preceding?.unique) takePreceding(d, preceding.unique);
  for (let index = 0; index < writes.items.length; index++)
    decideItem(d, writes.items[index], index);
  return d;
}

/** The unique values earlier batches of this dry-run take, held by them unless a record holds one. */
function takePreceding(d: Decisions, unique: Record<string, readonly string[]>): void {
  for (const [field, values] of Object.entries(unique))
    for (const value of values)
      if (!d.rules.unique.holder(field, value))
        d.rules.unique.take(field, value, { preceding: true });
}

/** The record an item names by external id (upserts) or id (updates), as the items so far leave it. */
function known(d: Decisions, key: string | number): Known | undefined {
  let found = d.known.get(key);
  if (found === undefined) {
    const record = d.rules.lookups.records.get(key);
    if (record === undefined) return undefined;
    found = { record };
    d.known.set(key, found);
  }
  return found;
}

/** Whether an earlier batch of this dry-run creates the record with this very external id. */
function precedingCreates(d: Decisions, externalId: string): boolean {
  return (
    "preceding" in (d.rules.unique.holder("external_id", externalId) ?? {}) &&
    d.writes.preceding?.unique?.external_id?.includes(externalId) === true
  );
}

/** When the write happens, as records show it. */
export function stampOf(d: Decisions): string {
  d.stamp ??= d.at.toISOString();
  return d.stamp;
}

const fieldsOf = (item: unknown): Record<string, unknown> | undefined =>
  typeof item === "object" && item !== null && !Array.isArray(item)
    ? (item as Record<string, unknown>)
    : undefined;

/** The id an item names, if it is one. */
export function recordIdOf(item: unknown): number | undefined {
  const id = fieldsOf(item)?.id;
  return typeof id === "number" && Number.isSafeInteger(id) && id >= 1 ? id : undefined;
}

/** The external id an item names, if it is one. */
export function externalIdOf(item: unknown): string | undefined {
  const value = fieldsOf(item)?.external_id;
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/** A new record as a read shows it, before its id is known. */
function newRecord(
  def: ResourceDefinition,
  values: Record<string, unknown>,
  at: string,
): StoredRecord {
  const record: Record<string, unknown> = {};
  for (const name of readableFieldNames(def))
    record[name] = name === "created_at" || name === "updated_at" ? at : (values[name] ?? null);
  return record as StoredRecord;
}

/**
 * One item, in order: the stored result of its key when the key is bound already (409 for another
 * item under it), else the step of its case, or its refusal.
 */
function decideItem(d: Decisions, item: unknown, index: number): void {
  const key = d.writes.itemKeys?.[index];
  if (key !== undefined && replayed(d, key, item, index)) return;
  try {
    const step = decideStep(d, item, index);
    d.outcomes.push(step.outcome);
    d.steps.push(step);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    d.outcomes.push({ index, status: error.status, id: null, error });
  }
}

/** True when the item's key is bound already: its outcome is the stored one. */
function replayed(d: Decisions, key: string, item: unknown, index: number): boolean {
  const fingerprint = itemFingerprint(d.def.name, d.writes.kind, item);
  const bound = d.rules.lookups.boundKeys.get(key);
  if (bound && !bound.expired) {
    d.outcomes.push(
      bound.fingerprint === fingerprint
        ? { index, status: bound.status, id: bound.id, action: bound.action, replayed: true }
        : { index, status: 409, id: null, error: itemKeyReuse() },
    );
    return true;
  }
  if (bound?.expired) d.plan.expiredKeys.push(key);
  d.fingerprints![index] = fingerprint;
  return false;
}

/** The item's step, by what the write does with its items. */
function decideStep(d: Decisions, item: unknown, index: number): Step {
  switch (d.writes.kind) {
    case "restore":
      return decideRestore(d, item, index);
    case "update":
      return d.writes.recordId === undefined
        ? decideUpdateById(d, item, index)
        : decidePatch(d, d.writes.recordId, item, index);
    case "upsert":
      return decideUpsert(d, item, index);
    case "create":
      return decideCreate(d, item, index);
  }
}

/** A restore: the deleted record `{id}` names comes back with the values it kept. */
function decideRestore(d: Decisions, item: unknown, index: number): Step {
  const id = restoreItem(item);
  const found = d.restorable!.records.get(id);
  if (!found) throw notFound(d.def.singular.toLowerCase(), id);
  if (!found.deleted) throw notDeleted(d.def.singular, id);
  // Its custom values as the company's fields show them now.
  if ("custom_fields" in found.record)
    found.record.custom_fields = shownValues(
      d.rules.lookups.customFields,
      found.record.custom_fields,
    );
  restoreRules(d.rules, found.record, d.quota);
  for (const field of uniqueFields(d.def)) d.rules.unique.take(field, found.record[field], { id });
  for (const [name, value] of customUniqueValues(d.rules, found.record.custom_fields))
    d.rules.unique.take(name, value, { id });
  // Restored: a later item naming it again finds it live.
  found.deleted = false;
  d.restored.push(found.record);
  const record = d.writes.dryRun ? found.record : { ...found.record, updated_at: stampOf(d) };
  return { outcome: { index, status: 200, id, action: "restored", record } };
}

/** An update by id: the item names its record by `id`, with the fields to change and its if_match. */
function decideUpdateById(d: Decisions, item: unknown, index: number): Step {
  const named = updateItem(d.def, item);
  const found = known(d, named.id);
  if (!found) throw notFound(d.def.singular.toLowerCase(), named.id);
  checkItemIfMatch(named.ifMatch, found.record, d.writes.shown);
  return decideUpdate(d, found, named.fields, index);
}

/** A PATCH: the item is the fields to change of the record the path names, under its If-Match. */
function decidePatch(d: Decisions, id: number, item: unknown, index: number): Step {
  const found = known(d, id);
  if (!found) throw notFound(d.def.singular.toLowerCase(), id);
  checkIfMatch(d.writes.ifMatch ?? null, found.record, d.writes.shown);
  return decideUpdate(d, found, item, index);
}

/**
 * An upsert: the record with the item's external_id is updated; without one, or in a dry-run the
 * one an earlier batch creates, it is created.
 */
function decideUpsert(d: Decisions, item: unknown, index: number): Step {
  const externalId = externalIdOf(item);
  if (externalId === undefined) {
    throw validationFailed([
      {
        field: "external_id",
        code: "required",
        message:
          'With on_conflict "update" every item needs its external_id, which finds the record to update.',
      },
    ]);
  }
  const found = known(d, externalId);
  if (found) {
    if (d.writes.ifMatch !== undefined)
      checkIfMatch(d.writes.ifMatch, found.record, d.writes.shown);
    return decideUpdate(d, found, item, index);
  }
  // An earlier batch of this dry-run creates the record: the real run updates it. Only the very
  // external id finds it (one that differs in trailing spaces is a conflict).
  if (precedingCreates(d, externalId)) return decideUnseenUpdate(d, item, index);
  if (d.writes.ifMatch !== undefined && d.writes.ifMatch !== null)
    throw nothingToMatch(d.def.singular.toLowerCase(), externalId);
  const step = decideCreate(d, item, index);
  d.known.set(externalId, { record: step.outcome.record, created: step.target, createdBy: index });
  return step;
}

/**
 * The update of a record the database does not hold yet: its fields are checked as an update's are;
 * the record itself is not there to compare with.
 */
function decideUnseenUpdate(d: Decisions, item: unknown, index: number): Step {
  const values = unseenUpdateRules(d.rules, item);
  const record = newRecord(d.def, values, stampOf(d));
  return { outcome: { index, status: 200, id: null, action: "updated", record, changes: {} } };
}

/** A create: the item's values under every create rule, with the path's and the defaults. */
function decideCreate(d: Decisions, item: unknown, index: number): Step {
  const values = createRules(d.rules, item, d.fixed, d.quota);
  for (const field of uniqueFields(d.def))
    d.rules.unique.take(field, values[field], { item: index });
  for (const [name, value] of customUniqueValues(d.rules, values.custom_fields))
    d.rules.unique.take(name, value, { item: index });
  const target: NewRecord = { values, id: null };
  d.created.push(target);
  const record = newRecord(d.def, values, stampOf(d));
  return { outcome: { index, status: 201, id: null, action: "created", record }, target };
}

/** An update of a record found, stored or created by an earlier item, under every PATCH rule. */
function decideUpdate(d: Decisions, found: Known, fields: unknown, index: number): Step {
  const update = updateRules(d.rules, found.record, fields);
  const changed = Object.keys(update.changes).length > 0;
  const record = changed ? leaveUpdated(d, found, update) : found.record;
  const outcome = {
    index,
    status: 200,
    id: found.created ? null : record.id,
    action: changed ? ("updated" as const) : ("unchanged" as const),
    record,
    changes: update.changes,
  };
  return { outcome, target: found.created };
}

/**
 * The record an update that changes fields leaves (a dry-run shows it with its stored updated_at),
 * and its effect for the items after it: its unique values handed on, the record as it now is.
 */
function leaveUpdated(d: Decisions, found: Known, { merged, changed }: Update): StoredRecord {
  const stored = found.record;
  const version = d.writes.dryRun ? undefined : nextVersion(stored.updated_at, d.at);
  const record = version ? { ...merged, updated_at: version.toISOString() } : merged;
  for (const field of uniqueFields(d.def)) {
    if (!(field in changed)) continue;
    d.rules.unique.free(field, stored[field]);
    const holder = found.createdBy !== undefined ? { item: found.createdBy } : { id: record.id };
    d.rules.unique.take(field, changed[field], holder);
  }
  if ("custom_fields" in changed) {
    const holder = found.createdBy !== undefined ? { item: found.createdBy } : { id: record.id };
    for (const [name, value] of customUniqueValues(d.rules, stored.custom_fields))
      d.rules.unique.free(name, value);
    for (const [name, value] of customUniqueValues(d.rules, changed.custom_fields))
      d.rules.unique.take(name, value, holder);
  }
  found.record = record;
  if (found.created) Object.assign(found.created.values, changed);
  else if (version) changeStored(d, record, changed, stored, version);
  return record;
}

/** A stored record the plan writes: the fields the items set in it, over all of them. */
function changeStored(
  d: Decisions,
  record: StoredRecord,
  values: Record<string, unknown>,
  stored: StoredRecord,
  version: Date,
): void {
  const entry = d.changed.get(record.id);
  if (!entry) {
    d.changed.set(record.id, { record, values, stored, version });
    return;
  }
  entry.record = record;
  entry.values = { ...entry.values, ...values };
  entry.version = version;
}
