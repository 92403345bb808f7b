// Batch writes (CONTRACT 10): up to 500 items of one resource in one transaction, in order, each
// seeing the effect of the ones before it (quotas, unique fields, upserts of the same external id).
// An item's checks all run before its one write, and quota slots come from a ledger settled at the
// end, so a refused item has written nothing and needs no savepoint of its own: it is reported and
// the batch goes on, unless the batch is atomic, in which case any refusal rolls back the whole
// batch (422 batch_failed, with every item's result). A dry-run really runs the items, then rolls
// back to the savepoint taken before the first one: what the batch would do, found exactly, with
// nothing written.
import { sql } from "drizzle-orm";
import type { Company } from "../auth/company.ts";
import type { Transaction } from "../db/client.ts";
import { ApiError, validationFailed, type FieldError, type ProblemBody } from "../http/problem.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import type { Scope } from "../resources/store.ts";
import type { RecordChange } from "./changes.ts";
import { createRecord } from "./create.ts";
import { QuotaLedger } from "./quotas.ts";
import type { WriteResult } from "./idempotency.ts";
import { upsertByExternalId } from "./upsert.ts";

export const MAX_BATCH_ITEMS = 500;

export interface BatchRequest {
  def: ResourceDefinition;
  company: Company;
  scope: Scope;
  body: unknown;
  dryRun: boolean;
  requestId: string;
  location: (id: number) => string;
}

export interface BatchItemResult {
  index: number;
  status: number;
  id: number | null;
  action?: "created" | "updated" | "unchanged";
  error?: ProblemBody;
}

interface BatchOptions {
  items: unknown[];
  atomic: boolean;
  upsert: boolean;
}

/** The envelope of a batch: every problem of it at once, like any body. */
function parseBatch(body: unknown): BatchOptions {
  const errors: FieldError[] = [];
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw validationFailed([{ field: "body", code: "invalid_type", message: "The body must be an object: {\"items\": [...], \"atomic\": false, \"on_conflict\": \"error\"}." }]);
  }
  const { items, atomic = false, on_conflict: onConflict = "error", ...rest } = body as Record<string, unknown>;
  for (const name of Object.keys(rest)) errors.push({ field: name, code: "unknown_field", message: `${name} is not a batch option; the body has items, atomic and on_conflict.` });
  if (!Array.isArray(items)) errors.push({ field: "items", code: items === undefined ? "required" : "invalid_type", message: "items must be an array of 1 to 500 records to write." });
  else if (items.length < 1 || items.length > MAX_BATCH_ITEMS) errors.push({ field: "items", code: items.length < 1 ? "too_short" : "too_long", message: `items must hold 1 to ${MAX_BATCH_ITEMS} records; it has ${items.length}. Split a larger file into several batches.` });
  if (typeof atomic !== "boolean") errors.push({ field: "atomic", code: "invalid_type", message: "atomic must be true or false." });
  if (onConflict !== "error" && onConflict !== "update") errors.push({ field: "on_conflict", code: "invalid_enum", message: "on_conflict must be \"error\" (an existing external_id is refused) or \"update\" (it is updated)." });
  if (errors.length > 0) throw validationFailed(errors);
  return { items: items as unknown[], atomic: atomic as boolean, upsert: onConflict === "update" };
}

function externalIdOf(item: unknown): string | undefined {
  const value = typeof item === "object" && item !== null ? (item as Record<string, unknown>).external_id : undefined;
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

export async function runBatch(tx: Transaction, request: BatchRequest): Promise<WriteResult> {
  const { def, company, scope, dryRun } = request;
  const { items, atomic, upsert } = parseBatch(request.body);
  const results: BatchItemResult[] = [];
  const changes: RecordChange[] = [];
  const quota = new QuotaLedger(tx, company);
  await tx.execute(sql`SAVEPOINT batch_start`);
  for (const [index, item] of items.entries()) {
    try {
      const externalId = externalIdOf(item);
      if (upsert && externalId === undefined) {
        throw validationFailed([{ field: "external_id", code: "required", message: "With on_conflict \"update\" every item needs its external_id, which finds the record to update." }]);
      }
      const written = upsert
        ? await upsertByExternalId(tx, { def, company, scope, externalId: externalId!, body: item, dryRun: false, ifMatch: null, location: request.location, quota })
        : await createRecord(tx, { def, company, scope, body: item, dryRun: false, location: request.location, quota });
      const data = (written.body as { data: { id: number; updated?: boolean } }).data;
      const action = written.status === 201 ? "created" : data.updated ? "updated" : "unchanged";
      results.push({ index, status: written.status, id: dryRun && action === "created" ? null : data.id, action });
      changes.push(...(written.changes ?? []));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      results.push({ index, status: error.status, id: null, error: error.body(request.requestId) });
    }
  }
  await quota.settle();
  const failed = results.filter((result) => result.error).length;
  const summary = {
    dry_run: dryRun,
    atomic,
    created: results.filter((result) => result.action === "created").length,
    updated: results.filter((result) => result.action === "updated").length,
    failed,
    results,
  };
  if (atomic && failed > 0) {
    throw new ApiError(422, "batch_failed", `${failed} of ${items.length} items were refused, so none was written (atomic batch); each item's result says why.`, undefined, {}, { data: { ...summary, created: 0, updated: 0 } });
  }
  if (dryRun) await tx.execute(sql`ROLLBACK TO SAVEPOINT batch_start`);
  return { status: 200, body: { data: summary }, changes: dryRun ? [] : changes };
}
