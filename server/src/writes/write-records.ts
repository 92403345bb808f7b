// Creates, upserts by external id, updates by id and restores of one resource, any number at once,
// in order, each seeing the effect of the ones before it, in three steps. Read: everything they need
// as sets in one round trip (lookups.ts). Decide: every item in memory, one function per case
// (item-decisions.ts, under the rules of item-rules.ts). Plan: what they write becomes a few
// statements whatever their number (record-plan.ts): one statement for the updated records (two
// when they hand unique values on among them), one INSERT of every new record (its ids taken from
// this process's id blocks once the creates are known), then the counters, events and item keys of
// writes/commit.ts. A single create, upsert, PATCH or restore is the same code with one item.
import { getTableName } from "drizzle-orm";
import type { Company } from "../auth/company.ts";
import type { IdAllocator } from "../db/ids.ts";
import type { WriteTransaction } from "../db/write-transaction.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import type { Shown } from "../resources/shown.ts";
import type { Scope } from "../resources/store.ts";
import { type Decisions, decideItems, externalIdOf, recordIdOf } from "./item-decisions.ts";
import { boundItemKeys, type ItemKind } from "./item-keys.ts";
import {
  type Lookups,
  lookUp,
  readableOutside,
  readRestorable,
  type Restorable,
} from "./lookups.ts";
import type { Reads } from "./outside-reads.ts";
import { planRecords } from "./record-plan.ts";
import type {
  ItemOutcome,
  RecordWrites,
  RecordWritesResult,
  RestoredWith,
} from "./record-writes.ts";

const NONE: Record<string, unknown> = Object.freeze({});

/** What a single create, upsert or PATCH names besides its item. */
export interface SingleWrite {
  def: ResourceDefinition;
  company: Company;
  scope: Scope;
  dryRun: boolean;
  /** What the writing token sees of the records (its If-Match tags). */
  shown?: Shown;
}

/**
 * The writes of a single create, upsert or PATCH: its one item, read outside the transaction when
 * that needs no lock (then it joins its company's group commit).
 */
export function singleWrite(
  outside: Reads,
  { def, company, scope, dryRun, shown }: SingleWrite,
  item: unknown,
  kind: ItemKind,
  ifMatch?: string | null,
  recordId?: number,
): RecordWrites {
  return { outside, def, company, scope, dryRun, shown, items: [item], kind, ifMatch, recordId };
}

export async function writeRecords(
  tx: WriteTransaction,
  ids: IdAllocator,
  writes: RecordWrites,
): Promise<RecordWritesResult> {
  const { def, scope, items, kind } = writes;
  // What every create sets from the path; a PATCH names its parent in its read instead.
  const fixed =
    kind !== "update" && def.parent && scope.parentId !== undefined
      ? { [def.parent.column]: scope.parentId }
      : NONE;
  // A restore reads its records first: their kept values are what the checks read, as a create's
  // body is.
  const restorable =
    kind === "restore"
      ? await readRestorable(tx, def, writes.company.id, recordIds(items), writes.dryRun)
      : undefined;
  const d = decideItems(writes, await read(tx, writes, fixed, restorable), fixed, restorable);
  if (writes.itemKeysRead === false && (await refusedItemBound(tx, writes, d.outcomes)))
    return writeRecords(tx, ids, { ...writes, itemKeysRead: true });
  const { outcomes, plan } = d;
  const cascaded = restoredWith(d);
  if (writes.dryRun || (writes.atomic && outcomes.some((outcome) => outcome.error)))
    return { outcomes, plan, cascaded };
  // The creates are known: their ids, then the plan.
  const count = d.created.length;
  const firstId = count > 0 ? await ids.take(getTableName(def.table), count) : 0;
  planRecords(d, firstId, cascaded);
  return { outcomes, plan, cascaded };
}

/** The ids the items name. */
const recordIds = (items: readonly unknown[]): number[] =>
  items.flatMap((item) => recordIdOf(item) ?? []);

/**
 * What the items decide on, as sets in one round trip: outside the transaction when that needs no
 * lock (lookups.ts, readableOutside) and a single write gave the reads to use there.
 */
function read(
  tx: WriteTransaction,
  writes: RecordWrites,
  fixed: Record<string, unknown>,
  restorable: Restorable | undefined,
): Promise<Lookups> {
  const { def, company, dryRun, items, kind } = writes;
  const creates = kind !== "update";
  const outside =
    writes.outside !== undefined &&
    !restorable &&
    (dryRun || readableOutside({ def, company, bodies: items, fixed, creates }));
  return lookUp(outside ? writes.outside! : tx, {
    def,
    company,
    dryRun,
    outside,
    bodies: restorable
      ? [...restorable.records.values()].flatMap(({ record, deleted }) => (deleted ? [record] : []))
      : items,
    fixed,
    creates,
    recordId: writes.recordId,
    parentId: writes.scope.parentId,
    recordIds: kind === "update" && writes.recordId === undefined ? recordIds(items) : undefined,
    externalIds: kind === "upsert" ? items.flatMap((item) => externalIdOf(item) ?? []) : undefined,
    itemKeys: writes.itemKeysRead === false ? undefined : writes.itemKeys,
  });
}

/**
 * Whether a refused item's key is bound (keys taken to be new are not read first): then its stored
 * result, not the refusal, is the item's answer, and every item is decided again with the keys read.
 */
async function refusedItemBound(
  tx: WriteTransaction,
  { company, itemKeys }: RecordWrites,
  outcomes: readonly ItemOutcome[],
): Promise<boolean> {
  const keys = outcomes.flatMap(({ error, index }) =>
    error && itemKeys?.[index] !== undefined ? [itemKeys[index]] : [],
  );
  if (keys.length === 0) return false;
  const bound = boundItemKeys(company.id, keys);
  const [rows] = await tx.run([bound.statement]);
  return bound.read(rows as Record<string, unknown>[]).size > 0;
}

/** What was deleted together with the restored records, which comes back with them. */
function restoredWith(d: Decisions): RestoredWith | undefined {
  return d.restorable?.dependents.map(({ def, byParent }) => ({
    def,
    records: d.restored.flatMap((record) => byParent.get(record.id) ?? []),
  }));
}
