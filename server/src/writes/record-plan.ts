// What the decided items of a write of records change (item-decisions.ts decides them), gathered in
// its plan, one function per kind of change: the stored records updated (first: a record created
// here may take a value one of them gives up), the restored ones, the INSERT of the created ones,
// then each item's change (its event) and its key's binding in item order, and last the records that
// come back with the restored ones. The rows are built from the records' values by
// record-statements.ts; the changes the events tell are made by itemChange.
import type { ChangeAction } from "../events/changes.ts";
import { uniqueFields } from "../resources/fields.ts";
import { column } from "../resources/store.ts";
import { type ChangedRecord, type Decisions, type Step, stampOf } from "./item-decisions.ts";
import { planCustomValues, uniqueValuesAfter } from "./custom-values.ts";
import type { PlannedChange } from "./plan.ts";
import type { RestoredWith } from "./record-writes.ts";
import {
  clearValues,
  insertRecords,
  restoreRecords,
  updateRecord,
  updateRecords,
} from "./record-statements.ts";
import { rowKey } from "./row-versions.ts";
import { uniqueKeyFor } from "./unique-values.ts";

/** The plan of the items decided (`firstId`: the first of the ids taken for the creates). */
export function planRecords(
  d: Decisions,
  firstId: number,
  cascaded: RestoredWith | undefined,
): void {
  planUpdates(d);
  planRestores(d);
  planCreates(d, firstId);
  planCustomValues(d);
  planItems(d);
  if (cascaded) planRestoredWith(d, cascaded);
}

/**
 * The nullable unique fields in which one changed record takes a value another of them held: the
 * rows of one statement are written one by one, so the taker's row would meet the value still held.
 * Those values are cleared first (a statement more), and every row then written whole.
 */
function valuesPassedOn(d: Decisions, changed: readonly ChangedRecord[]): string[] {
  return uniqueFields(d.def).filter((field) => {
    if (column(d.def.table, field).notNull) return false;
    const keyOf = uniqueKeyFor(d.def, field);
    const held = new Map<string, number>();
    for (const { stored } of changed)
      if (typeof stored[field] === "string") held.set(keyOf(stored[field]), stored.id);
    return changed.some(({ record, values }) => {
      const value = record[field];
      if (!(field in values) || typeof value !== "string") return false;
      const holder = held.get(keyOf(value));
      return holder !== undefined && holder !== record.id;
    });
  });
}

/** The stored records changed: one guarded UPDATE for one record, a statement (or two) for many. */
function planUpdates(d: Decisions): void {
  const { def, plan } = d;
  const companyId = d.writes.company.id;
  if (d.changed.size === 1) {
    // Guarded: the record may have been read outside the transaction.
    const { record, values, stored, version } = d.changed.values().next().value!;
    plan.statements.push(
      updateRecord(def, companyId, record.id, values, version, stored.updated_at),
    );
    plan.guarded.push(rowKey(def, record.id));
  } else if (d.changed.size > 1) {
    const changed = [...d.changed.values()];
    const clear = valuesPassedOn(d, changed);
    if (clear.length > 0) {
      const ids = changed.map(({ record }) => record.id);
      plan.statements.push(clearValues(def, companyId, ids, clear));
    }
    const records = changed.map(({ record }) => record);
    plan.statements.push(updateRecords(def, companyId, records));
  }
}

/** The restored records: live again in one statement, counted again. */
function planRestores({ def, writes, plan, restored, at }: Decisions): void {
  if (restored.length === 0) return;
  const ids = restored.map((record) => record.id);
  plan.statements.push(restoreRecords(def.table, writes.company.id, ids, at));
  plan.count(def, restored.length);
}

/** The records created, with their ids from `firstId` on: one INSERT of them all. */
function planCreates({ def, writes, plan, created, at }: Decisions, firstId: number): void {
  if (created.length === 0) return;
  for (const [offset, record] of created.entries()) record.id = firstId + offset;
  const companyId = writes.company.id;
  const rows = created.map(({ id, values }) => ({ id: id!, companyId, values, at }));
  plan.insert(def, insertRecords(def, rows));
  plan.count(def, created.length);
}

/** Each item in order: its record's id once known, its change and its key's binding. */
function planItems(d: Decisions): void {
  const keys = d.writes.itemKeys;
  for (const { outcome, target } of d.steps) {
    if (target) {
      outcome.id = target.id;
      outcome.record = { ...outcome.record, id: target.id! };
    }
    const key = keys?.[outcome.index];
    if (outcome.action !== "unchanged")
      d.plan.changes.push(itemChange(d, outcome, outcome.action, key));
    if (key !== undefined)
      d.plan.bindings.push({
        key,
        fingerprint: d.fingerprints![outcome.index]!,
        status: outcome.status,
        id: outcome.id!,
        action: outcome.action,
      });
  }
}

/** The change an item made, as its event tells it: an update's with each changed field. */
function itemChange(
  d: Decisions,
  { record, changes }: Step["outcome"],
  action: ChangeAction,
  key: string | undefined,
): PlannedChange {
  const change: PlannedChange = { resource: d.def.name, action, record };
  if (changes) change.changes = changes;
  if (key !== undefined) change.key = key;
  return change;
}

/** Records restored with their parents: back in one statement per resource, after them in the feed. */
function planRestoredWith(d: Decisions, cascaded: RestoredWith): void {
  for (const { def, records } of cascaded) {
    if (records.length === 0) continue;
    const ids = records.map((record) => record.id);
    d.plan.statements.push(restoreRecords(def.table, d.writes.company.id, ids, d.at));
    d.plan.statements.push(...uniqueValuesAfter(def, d.writes.company.id, ids));
    d.plan.count(def, records.length);
    for (const record of records)
      d.plan.changes.push({
        resource: def.name,
        action: "restored",
        record: { ...record, updated_at: stampOf(d) },
      });
  }
}
