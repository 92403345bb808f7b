// What a write of records (write-records.ts) is asked and answers, shared by its steps: the items it
// decides (item-decisions.ts) and the plan it makes of them (record-plan.ts).
import type { Company } from "../auth/company.ts";
import type { FieldChange } from "../events/changes.ts";
import type { Refusal } from "../refusals/refusal.ts";
import type { ResourceDefinition, StoredRecord } from "../resources/definition.ts";
import type { Scope } from "../resources/store.ts";
import type { ItemAction, ItemKind } from "./item-keys.ts";
import type { Reads } from "./outside-reads.ts";
import type { Shown } from "../resources/shown.ts";
import type { WritePlan } from "./plan.ts";

export interface RecordWrites {
  def: ResourceDefinition;
  company: Company;
  scope: Scope;
  dryRun: boolean;
  items: readonly unknown[];
  /**
   * What every item does: `create` a record; `upsert` one by external id (an item whose external_id
   * names a live record updates it); `update` the record its `id` names (it may carry `if_match`,
   * update-items.ts); `restore` the deleted record its `{id}` names, checked as its create would be
   * (references, unique values, quota), with what was deleted together with it.
   */
  kind: ItemKind;
  /**
   * A PATCH (kind `update`, one item): the item is the fields to change of this record, which must
   * be of the scope's parent for a sub-collection.
   */
  recordId?: number;
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
  /** What the writing token sees of the records: its If-Match tags are those its GETs send. */
  shown?: Shown;
  /** A single upsert's or PATCH's If-Match: it must match the record found (an upsert's: and there must be one). */
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

/** Per cascading dependent, the records deleted together with the restored ones that come back with them. */
export type RestoredWith = { def: ResourceDefinition; records: StoredRecord[] }[];

export interface RecordWritesResult {
  outcomes: ItemOutcome[];
  plan: WritePlan;
  /** Restores: the records deleted together with the restored ones that come back with them. */
  cascaded?: RestoredWith;
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
