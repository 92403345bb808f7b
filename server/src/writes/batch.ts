// Batch writes (docs/writes-and-retries.md): up to 500 items of one resource in one transaction, in
// order, each seeing the effect of the ones before it (quotas, unique fields, upserts of the same
// external id, updates of the same record), at the cost of a bounded number of statements whatever
// the size (write-records.ts). Items are creates (upserts with on_conflict "update"), or with
// operation "update" changes to the records their ids name. A refused item is reported and the batch
// goes on, unless the batch is atomic: then any refusal refuses the whole batch (422 batch_failed,
// with every item's result) and nothing is written. A dry-run decides every item exactly as the real
// run would, and writes nothing; a file previewed in several dry-run batches tells each batch what
// the earlier ones would have written (`preceding`), so the preview stays exact across batches. Item
// keys make each item run at most once across batches of any composition.
import type { Company } from "../auth/company.ts";
import type { IdAllocator } from "../db/ids.ts";
import type { WriteTransaction } from "../db/write-transaction.ts";
import { batchFailed, unknownFields, validationFailed } from "../refusals/catalogue.ts";
import type { Problem } from "../refusals/problem-schema.ts";
import type { FieldError } from "../refusals/refusal.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import type { Shown } from "../resources/shown.ts";
import type { Scope } from "../resources/store.ts";
import { bodyMembers } from "../resources/validation.ts";
import type { Decided } from "./execute-write.ts";
import type { ItemAction, ItemKind } from "./item-keys.ts";
import type { Preceding } from "./record-writes.ts";
import { writeRecords } from "./write-records.ts";

export const MAX_BATCH_ITEMS = 500;

const ITEM_KEY = /^[\x20-\x7e]{1,255}$/;

export interface BatchRequest {
  def: ResourceDefinition;
  company: Company;
  scope: Scope;
  body: unknown;
  dryRun: boolean;
  requestId: string;
  /** Read the item keys before deciding the items (writes/execute-write.ts); read when absent. */
  itemKeysRead?: boolean;
  /** What the writing token sees of the records: its items' if_match tags are those its GETs send. */
  shown?: Shown;
}

export interface BatchItemResult {
  index: number;
  status: number;
  id: number | null;
  action?: ItemAction;
  replayed?: true;
  error?: Problem;
}

/** What a batch did (or would do, in a dry-run): its counts and every item's result. */
export type BatchSummary = Record<"created" | "updated" | "restored" | "failed", number> & {
  dry_run: boolean;
  atomic: boolean;
  results: BatchItemResult[];
};

interface BatchOptions {
  items: unknown[];
  atomic: boolean;
  /**
   * `operation: "create"`: creates, or upserts with on_conflict "update"; `"update"`: every item
   * updates the record its `id` names; `"restore"`: every item `{id}` brings a deleted record back.
   */
  kind: ItemKind;
  itemKeys: string[] | undefined;
  preceding: Preceding | undefined;
}

function itemKeyErrors(keys: unknown, items: unknown): FieldError[] {
  const fail = (message: string): FieldError[] => [
    { field: "item_keys", code: "invalid_value", message },
  ];
  if (keys === undefined) return [];
  if (!Array.isArray(keys))
    return [
      {
        field: "item_keys",
        code: "invalid_type",
        message: "item_keys must be an array of strings, one per item.",
      },
    ];
  if (Array.isArray(items) && keys.length !== items.length)
    return fail(
      `item_keys must hold one key per item: ${items.length} items, ${keys.length} keys.`,
    );
  const bad = keys.findIndex((key) => typeof key !== "string" || !ITEM_KEY.test(key));
  if (bad >= 0) return fail(`item_keys[${bad}] must be 1 to 255 printable ASCII characters.`);
  const seen = new Set<string>();
  const twice = (keys as string[]).findIndex((key) => seen.size === seen.add(key).size);
  if (twice >= 0)
    return fail(`item_keys[${twice}] repeats an earlier key; each item needs a key of its own.`);
  return [];
}

function precedingErrors(preceding: unknown, dryRun: boolean): FieldError[] {
  if (preceding === undefined) return [];
  const fail = (message: string): FieldError[] => [
    { field: "preceding", code: "invalid_value", message },
  ];
  if (!dryRun)
    return fail(
      "preceding describes earlier batches of the same dry-run; send it only with a dry-run.",
    );
  if (typeof preceding !== "object" || preceding === null || Array.isArray(preceding))
    return fail('preceding must be an object: {"created": 0, "unique": {"code": ["P-1"]}}.');
  const { created = 0, unique = {}, ...rest } = preceding as Record<string, unknown>;
  if (Object.keys(rest).length > 0)
    return fail(`preceding has created and unique, not ${Object.keys(rest).join(", ")}.`);
  if (!Number.isSafeInteger(created) || (created as number) < 0)
    return fail("preceding.created must be a whole number from 0.");
  if (
    typeof unique !== "object" ||
    unique === null ||
    Array.isArray(unique) ||
    !Object.values(unique).every(
      (values) =>
        Array.isArray(values) &&
        values.length <= MAX_BATCH_ITEMS &&
        values.every((value) => typeof value === "string"),
    )
  ) {
    return fail(
      `preceding.unique must map a field to the values (at most ${MAX_BATCH_ITEMS} strings) ` +
        `earlier batches would take.`,
    );
  }
  return [];
}

/** The envelope of a batch: every problem of it at once, like any body. */
function parseBatch(body: unknown, dryRun: boolean): BatchOptions {
  const {
    items,
    atomic = false,
    on_conflict: onConflict = "error",
    operation = "create",
    item_keys: itemKeys,
    preceding,
    ...rest
  } = bodyMembers(body, 'an object: {"items": [...], "atomic": false, "on_conflict": "error"}');
  const errors = unknownFields(
    Object.keys(rest),
    "a batch option; the body has items, operation, atomic, on_conflict, item_keys and preceding",
  );
  if (!Array.isArray(items))
    errors.push({
      field: "items",
      code: items === undefined ? "required" : "invalid_type",
      message: "items must be an array of 1 to 500 records to write.",
    });
  else if (items.length < 1 || items.length > MAX_BATCH_ITEMS)
    errors.push({
      field: "items",
      code: items.length < 1 ? "too_short" : "too_long",
      message:
        `items must hold 1 to ${MAX_BATCH_ITEMS} records; it has ${items.length}. Split ` +
        `a larger file into several batches.`,
    });
  if (typeof atomic !== "boolean")
    errors.push({
      field: "atomic",
      code: "invalid_type",
      message: "atomic must be true or false.",
    });
  if (onConflict !== "error" && onConflict !== "update")
    errors.push({
      field: "on_conflict",
      code: "invalid_enum",
      message:
        'on_conflict must be "error" (an existing external_id is refused) or "update" (it is updated).',
    });
  if (operation !== "create" && operation !== "update" && operation !== "restore")
    errors.push({
      field: "operation",
      code: "invalid_enum",
      message:
        'operation must be "create" (each item is a new record, or an upsert with on_conflict ' +
        '"update"), "update" (each item updates the record its id names) or "restore" ' +
        "(each item brings back the deleted record its id names).",
    });
  else if (operation !== "create" && onConflict === "update")
    errors.push({
      field: "on_conflict",
      code: "invalid_value",
      message:
        `on_conflict applies to creates; with operation "${String(operation)}" every ` +
        `item names its record by id. Leave on_conflict out.`,
    });
  errors.push(...itemKeyErrors(itemKeys, items), ...precedingErrors(preceding, dryRun));
  if (errors.length > 0) throw validationFailed(errors);
  return {
    items: items as unknown[],
    atomic: atomic as boolean,
    kind: operation === "create" && onConflict === "update" ? "upsert" : (operation as ItemKind),
    itemKeys: itemKeys as string[] | undefined,
    preceding: preceding as Preceding | undefined,
  };
}

export async function runBatch(
  tx: WriteTransaction,
  ids: IdAllocator,
  request: BatchRequest,
): Promise<Decided<BatchSummary>> {
  const { def, company, scope, dryRun } = request;
  const { items, atomic, kind, itemKeys, preceding } = parseBatch(request.body, dryRun);
  const { outcomes, plan } = await writeRecords(tx, ids, {
    def,
    company,
    scope,
    dryRun,
    items,
    kind,
    itemKeys,
    itemKeysRead: request.itemKeysRead,
    shown: request.shown,
    atomic,
    preceding,
  });
  // One pass over the (up to 500) outcomes: each item's result, and the counts.
  const counts = { created: 0, updated: 0, restored: 0, failed: 0 };
  const results: BatchItemResult[] = outcomes.map((outcome) => {
    const result: BatchItemResult = {
      index: outcome.index,
      status: outcome.status,
      id: outcome.id,
    };
    if (outcome.action) result.action = outcome.action;
    if (outcome.replayed) result.replayed = true;
    if (outcome.error) {
      result.error = outcome.error.body(request.requestId);
      counts.failed += 1;
    }
    const { action } = outcome;
    if (
      !outcome.replayed &&
      (action === "created" || action === "updated" || action === "restored")
    )
      counts[action] += 1;
    return result;
  });
  const { failed } = counts;
  const summary = {
    dry_run: dryRun,
    atomic,
    created: counts.created,
    updated: counts.updated,
    restored: counts.restored,
    failed,
    results,
  };
  if (atomic && failed > 0) {
    throw batchFailed(failed, items.length, { ...summary, created: 0, updated: 0, restored: 0 });
  }
  return { outcome: summary, plan };
}
