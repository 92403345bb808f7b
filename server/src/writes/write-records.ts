// Creates, upserts by external id and updates by id of one resource, any number at once, in order,
// each seeing the effect of the ones before it: everything they need is read as sets in one round
// trip (lookups.ts), every item is decided in memory under the rules of item-rules.ts, and what they
// write becomes a few statements whatever their number: one statement for the updated records (two
// when they hand unique values on among them), one INSERT of every new record (its ids taken from
// this process's id blocks once the creates are known), then the counters, events and item keys of
// writes/commit.ts. A single create or upsert is the same code with one item.
import { getTableName } from "drizzle-orm";
import type { Company } from "../auth/company.ts";
import type { IdAllocator } from "../db/ids.ts";
import type { WriteTransaction } from "../db/write-transaction.ts";
import {
  itemKeyReuse,
  notDeleted,
  notFound,
  nothingToMatch,
  validationFailed,
} from "../refusals/catalogue.ts";
import { Refusal } from "../refusals/refusal.ts";
import type { ResourceDefinition, StoredRecord } from "../resources/definition.ts";
import { readableFieldNames, uniqueFields } from "../resources/fields.ts";
import { column, type Scope } from "../resources/store.ts";
import type { FieldChange } from "../events/changes.ts";
import { boundItemKeys, itemFingerprint, type ItemAction } from "./item-keys.ts";
import {
  createRules,
  restoreRules,
  unseenUpdateRules,
  updateRules,
  type RuleContext,
} from "./item-rules.ts";
import { lookUp, readableOutside, readRestorable, type Restorable } from "./lookups.ts";
import type { Reads } from "./outside-reads.ts";
import { WritePlan } from "./plan.ts";
import { checkIfMatch } from "./preconditions.ts";
import { QuotaLedger } from "./quotas.ts";
import {
  clearValues,
  insertRecords,
  restoreRecords,
  updateRecord,
  updateRecords,
} from "./record-statements.ts";
import { nextVersion, rowKey } from "./row-versions.ts";
import { uniqueKeyOf } from "./unique-values.ts";
import { checkItemIfMatch, restoreItem, updateItem, type UpdateItem } from "./update-items.ts";

export interface RecordWrites {
  def: ResourceDefinition;
  company: Company;
  scope: Scope;
  dryRun: boolean;
  items: readonly unknown[];
  /** Upserts: an item whose external_id names a live record updates it. */
  upsert: boolean;
  /** Updates by id: every item names its record by `id` and may carry `if_match` (update-items.ts). */
  byId?: boolean;
  /**
   * Restores by id: every item `{id}` brings a deleted record back as it was, checked as its create
   * would be (references, unique values, quota), with what was deleted together with it.
   */
  restore?: boolean;
  /** A key per item (docs/writes-and-retries.md): an item runs at most once per key. */
  itemKeys?: readonly string[];
  /**
   * False: the item keys are taken to be new and not read first. A key bound already then fails the
   * commit (its binding is a duplicate) and the write runs again with them read; a refused item's
   * key is checked here, since a refusal binds nothing. Read when absent.
   */
  itemKeysRead?: boolean;
  /**
   * Where the look-ups run when they need no lock (writes/lookups.ts, readableOutside): outside the
   * transaction, which then joins its company's group commit. Given by single writes.
   */
  outside?: Reads;
  /** A single upsert's If-Match: it must match the record found (and there must be one). */
  ifMatch?: string | null;
  /** All or nothing: one refused item and nothing is written. */
  atomic?: boolean;
  /** A dry-run's earlier batches: what they would have written. */
  preceding?: Preceding;
}

/**
 * What earlier batches of the same dry-run would have written, so that a file previewed in several
 * batches is previewed exactly: how many records they create (quotas) and the unique values they
 * take (an external id among them names a record they create, which a later upsert updates).
 */
export interface Preceding {
  created?: number;
  unique?: Record<string, readonly string[]>;
}

export interface RecordWritesResult {
  outcomes: ItemOutcome[];
  plan: WritePlan;
  /** Restores: the records deleted together with the restored ones that come back with them. */
  cascaded?: { def: ResourceDefinition; records: StoredRecord[] }[];
}

export interface ItemOutcome {
  index: number;
  status: number;
  /** The record's id; null for a refused item and for a create in a dry-run. */
  id: number | null;
  action?: ItemAction;
  error?: Refusal;
  /** The item's key was bound already: this is the stored result, nothing was written. */
  replayed?: boolean;
  /** The record after the write, as a read shows it (creates and updates). */
  record?: StoredRecord;
  /** An update's changed fields. */
  changes?: Record<string, FieldChange>;
}

/** A record created by this write: its values (as later items leave them) and its id once known. */
interface NewRecord {
  values: Record<string, unknown>;
  id: number | null;
}

/** What an item that was written did, in item order: the source of the events and of the item keys. */
interface Step {
  outcome: ItemOutcome & { record: StoredRecord; action: ItemAction };
  /** The record the item created, or the new record it updated; stored records have their id. */
  target?: NewRecord;
  key?: string;
  fingerprint?: string;
}

const fieldsOf = (item: unknown): Record<string, unknown> | undefined =>
  typeof item === "object" && item !== null && !Array.isArray(item)
    ? (item as Record<string, unknown>)
    : undefined;

function recordIdOf(item: unknown): number | undefined {
  const id = fieldsOf(item)?.id;
  return typeof id === "number" && Number.isSafeInteger(id) && id >= 1 ? id : undefined;
}

function externalIdOf(item: unknown): string | undefined {
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
 * The nullable unique fields in which one changed record takes a value another of them held: the
 * rows of one statement are written one by one, so the taker's row would meet the value still held.
 * Those values are cleared first (a statement more), and every row then written whole.
 */
function valuesPassedOn(
  def: ResourceDefinition,
  changed: readonly { record: StoredRecord; fields: Set<string>; stored: StoredRecord }[],
): string[] {
  return uniqueFields(def).filter((field) => {
    if (column(def.table, field).notNull) return false;
    const held = new Map<string, number>();
    for (const { stored } of changed)
      if (typeof stored[field] === "string") held.set(uniqueKeyOf(stored[field]), stored.id);
    return changed.some(({ record, fields }) => {
      const value = record[field];
      if (!fields.has(field) || typeof value !== "string") return false;
      const holder = held.get(uniqueKeyOf(value));
      return holder !== undefined && holder !== record.id;
    });
  });
}

/** Whether a refused item's key is bound: its stored result, not the refusal, is the item's answer. */
async function refusedItemBound(
  tx: WriteTransaction,
  companyId: number,
  outcomes: readonly ItemOutcome[],
  itemKeys: readonly string[] | undefined,
): Promise<boolean> {
  const keys = outcomes.flatMap(({ error, index }) =>
    error && itemKeys?.[index] !== undefined ? [itemKeys[index]] : [],
  );
  if (keys.length === 0) return false;
  const bound = boundItemKeys(companyId, keys);
  const [rows] = await tx.run([bound.statement]);
  return bound.read(rows as Record<string, unknown>[]).size > 0;
}

export async function writeRecords(
  tx: WriteTransaction,
  ids: IdAllocator,
  writes: RecordWrites,
): Promise<RecordWritesResult> {
  const { def, company, scope, dryRun, items, upsert } = writes;
  const fixed =
    def.parent && scope.parentId !== undefined ? { [def.parent.column]: scope.parentId } : {};
  // A restore reads its records first: their kept values are what the checks read, as a create's
  // body is.
  const restorable: Restorable | undefined = writes.restore
    ? await readRestorable(
        tx,
        def,
        company.id,
        items.flatMap((item) => recordIdOf(item) ?? []),
        dryRun,
      )
    : undefined;
  const creates = !writes.byId || writes.restore === true;
  const outside =
    writes.outside !== undefined &&
    !restorable &&
    (dryRun || readableOutside({ def, company, bodies: items, fixed, creates }));
  const lookups = await lookUp(outside ? writes.outside! : tx, {
    def,
    company,
    dryRun,
    outside,
    bodies: restorable
      ? [...restorable.records.values()].flatMap(({ record, deleted }) => (deleted ? [record] : []))
      : items,
    fixed,
    creates,
    recordIds:
      writes.byId && !writes.restore ? items.flatMap((item) => recordIdOf(item) ?? []) : undefined,
    externalIds: upsert
      ? items.map(externalIdOf).filter((id): id is string => id !== undefined)
      : undefined,
    itemKeys: writes.itemKeysRead === false ? undefined : writes.itemKeys,
  });
  const ctx: RuleContext = { def, company, lookups, unique: lookups.unique };
  const precedingCreated = writes.preceding?.created ?? 0;
  const quota = new QuotaLedger(
    company,
    lookups.quotaUsed === undefined ? undefined : lookups.quotaUsed + precedingCreated,
  );
  const precedingExternalIds = new Set(writes.preceding?.unique?.external_id ?? []);
  for (const [field, values] of Object.entries(writes.preceding?.unique ?? {})) {
    for (const value of values)
      if (!ctx.unique.holder(field, value)) ctx.unique.take(field, value, { preceding: true });
  }
  const at = new Date();
  const stamp = at.toISOString();
  const plan = new WritePlan();
  const outcomes: ItemOutcome[] = [];
  const steps: Step[] = [];
  const created: NewRecord[] = [];
  /** Stored records this write changes, as it leaves them (and as they were). */
  const changedRecords = new Map<
    number,
    { record: StoredRecord; fields: Set<string>; stored: StoredRecord }
  >();
  /**
   * Records by external id (upserts) or id (updates by id) as the items so far leave them: stored
   * ones, and ones created here.
   */
  const known = new Map<
    string | number,
    { record: StoredRecord; created?: NewRecord; createdBy?: number }
  >();
  for (const [key, record] of lookups.records) known.set(key, { record });
  const kind = writes.restore ? "restore" : writes.byId ? "update" : upsert ? "upsert" : "create";
  /** The records restored, in item order. */
  const restored: StoredRecord[] = [];

  for (const [index, item] of items.entries()) {
    const key = writes.itemKeys?.[index];
    const fingerprint = key === undefined ? undefined : itemFingerprint(def.name, kind, item);
    const bound = key === undefined ? undefined : lookups.boundKeys.get(key);
    if (bound && !bound.expired) {
      outcomes.push(
        bound.fingerprint === fingerprint
          ? { index, status: bound.status, id: bound.id, action: bound.action, replayed: true }
          : { index, status: 409, id: null, error: itemKeyReuse() },
      );
      continue;
    }
    if (key !== undefined && bound?.expired) plan.expiredKeys.push(key);
    try {
      if (restorable) {
        const id = restoreItem(item);
        const found = restorable.records.get(id);
        if (!found) throw notFound(def.singular.toLowerCase(), id);
        if (!found.deleted) throw notDeleted(def.singular, id);
        restoreRules(ctx, found.record, quota);
        for (const field of uniqueFields(def)) ctx.unique.take(field, found.record[field], { id });
        // Restored: a later item naming it again finds it live.
        found.deleted = false;
        restored.push(found.record);
        const record = dryRun ? found.record : { ...found.record, updated_at: stamp };
        const outcome = { index, status: 200, id, action: "restored" as const, record };
        outcomes.push(outcome);
        steps.push({ outcome, key, fingerprint });
        continue;
      }
      const externalId = externalIdOf(item);
      if (upsert && externalId === undefined) {
        throw validationFailed([
          {
            field: "external_id",
            code: "required",
            message:
              'With on_conflict "update" every item needs its external_id, which finds the record to update.',
          },
        ]);
      }
      const named: UpdateItem | undefined = writes.byId ? updateItem(def, item) : undefined;
      const existing = named ? known.get(named.id) : upsert ? known.get(externalId!) : undefined;
      if (named && !existing) throw notFound(def.singular.toLowerCase(), named.id);
      if (
        upsert &&
        !existing &&
        precedingExternalIds.has(externalId!) &&
        "preceding" in (ctx.unique.holder("external_id", externalId) ?? {})
      ) {
        // An earlier batch of this dry-run creates the record: the real run updates it. Its fields
        // are checked as an update's are; the record itself is not there to compare with. Only
        // the very external id finds it (one that differs in trailing spaces is a conflict).
        const values = unseenUpdateRules(ctx, item);
        const outcome = {
          index,
          status: 200,
          id: null,
          action: "updated" as const,
          record: newRecord(def, values, stamp),
          changes: {},
        };
        outcomes.push(outcome);
        continue;
      }
      if (existing) {
        if (writes.ifMatch !== undefined) checkIfMatch(writes.ifMatch, existing.record);
        checkItemIfMatch(named?.ifMatch, existing.record);
        const update = updateRules(ctx, existing.record, named ? named.fields : item);
        const changed = Object.keys(update.changes).length > 0;
        // A dry-run shows the record as it would be, its updated_at still the stored one.
        const record = !changed
          ? existing.record
          : dryRun
            ? update.merged
            : {
                ...update.merged,
                updated_at: nextVersion(existing.record.updated_at, at).toISOString(),
              };
        const holder =
          existing.createdBy !== undefined ? { item: existing.createdBy } : { id: record.id };
        for (const field of uniqueFields(def)) {
          if (!(field in update.changed)) continue;
          ctx.unique.free(field, existing.record[field]);
          ctx.unique.take(field, update.changed[field], holder);
        }
        const before = existing.record;
        existing.record = record;
        if (changed && existing.created) Object.assign(existing.created.values, update.changed);
        else if (changed) {
          const entry = changedRecords.get(record.id) ?? {
            record,
            fields: new Set<string>(),
            stored: before,
          };
          entry.record = record;
          for (const field of Object.keys(update.changed)) entry.fields.add(field);
          changedRecords.set(record.id, entry);
        }
        const outcome = {
          index,
          status: 200,
          id: existing.created ? null : record.id,
          action: changed ? ("updated" as const) : ("unchanged" as const),
          record,
          changes: update.changes,
        };
        outcomes.push(outcome);
        steps.push({ outcome, target: existing.created, key, fingerprint });
        continue;
      }
      if (writes.ifMatch !== undefined && writes.ifMatch !== null) {
        throw nothingToMatch(def.singular.toLowerCase(), externalId!);
      }
      const values = createRules(ctx, item, fixed, quota);
      for (const field of uniqueFields(def)) ctx.unique.take(field, values[field], { item: index });
      const target: NewRecord = { values, id: null };
      const record = newRecord(def, values, stamp);
      created.push(target);
      if (upsert) known.set(externalId!, { record, created: target, createdBy: index });
      const outcome = { index, status: 201, id: null, action: "created" as const, record };
      outcomes.push(outcome);
      steps.push({ outcome, target, key, fingerprint });
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      outcomes.push({ index, status: error.status, id: null, error });
    }
  }
  if (
    writes.itemKeysRead === false &&
    (await refusedItemBound(tx, company.id, outcomes, writes.itemKeys))
  ) {
    return writeRecords(tx, ids, { ...writes, itemKeysRead: true });
  }
  // What was deleted together with the restored records comes back with them.
  const cascaded = (restorable?.dependents ?? []).map(({ def: dependent, byParent }) => ({
    def: dependent,
    records: restored.flatMap((record) => byParent.get(record.id) ?? []),
  }));
  if (dryRun || (writes.atomic && outcomes.some((outcome) => outcome.error)))
    return { outcomes, plan, cascaded };

  // Stored records first: a record created here may take a value one of them gives up.
  const changed = [...changedRecords.values()];
  if (changed.length === 1) {
    // Guarded: the record may have been read outside the transaction.
    const { record, fields, stored } = changed[0]!;
    plan.statements.push(
      updateRecord(
        def,
        company.id,
        record.id,
        Object.fromEntries([...fields].map((field) => [field, record[field]])),
        new Date(String(record.updated_at)),
        stored.updated_at,
      ),
    );
    plan.guarded.push(rowKey(def, record.id));
  } else if (changed.length > 1) {
    const clear = valuesPassedOn(def, changed);
    if (clear.length > 0)
      plan.statements.push(
        clearValues(
          def,
          company.id,
          changed.map(({ record }) => record.id),
          clear,
        ),
      );
    plan.statements.push(
      updateRecords(
        def,
        company.id,
        changed.map(({ record }) => record),
      ),
    );
  }
  if (restored.length > 0) {
    plan.statements.push(
      restoreRecords(
        def.table,
        company.id,
        restored.map((record) => record.id),
        at,
      ),
    );
    plan.count(def, restored.length);
  }
  // The creates are known: their ids, then their INSERT.
  if (created.length > 0) {
    const first = await ids.take(getTableName(def.table), created.length);
    for (const [offset, record] of created.entries()) record.id = first + offset;
    plan.insert(
      def,
      insertRecords(
        def,
        created.map((record) => ({
          id: record.id!,
          companyId: company.id,
          values: record.values,
          at,
        })),
      ),
    );
    plan.count(def, created.length);
  }
  for (const { outcome, target, key, fingerprint } of steps) {
    if (target) {
      outcome.id = target.id;
      outcome.record = { ...outcome.record, id: target.id! };
    }
    if (outcome.action !== "unchanged") {
      plan.changes.push({
        resource: def.name,
        action: outcome.action,
        record: outcome.record,
        ...(outcome.changes ? { changes: outcome.changes } : {}),
        ...(key !== undefined ? { key } : {}),
      });
    }
    if (key !== undefined)
      plan.bindings.push({
        key,
        fingerprint: fingerprint!,
        status: outcome.status,
        id: outcome.id!,
        action: outcome.action,
      });
  }
  // Records restored with their parents follow them in the feed.
  for (const { def: dependent, records } of cascaded) {
    if (records.length === 0) continue;
    plan.statements.push(
      restoreRecords(
        dependent.table,
        company.id,
        records.map((record) => record.id),
        at,
      ),
    );
    plan.count(dependent, records.length);
    for (const record of records)
      plan.changes.push({
        resource: dependent.name,
        action: "restored",
        record: { ...record, updated_at: stamp },
      });
  }
  return { outcomes, plan, cascaded };
}
