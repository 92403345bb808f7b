// PATCH: merge the sent fields into the stored record, with every rule, unless dry-run.
import type { Company } from "../auth/company.ts";
import type { Transaction } from "../db/client.ts";
import { notFound, validationFailed } from "../http/problem.ts";
import type { ResourceDefinition, StoredRecord } from "../resources/definition.ts";
import { findRecord, updateRecord, type Scope } from "../resources/store.ts";
import { checkDateOrder, validateBody } from "../resources/validation.ts";
import { checkReferences, checkTransition, checkUnique, guardUnique } from "./checks.ts";
import type { WriteResult } from "./idempotency.ts";
import { checkIfMatch, recordDocument } from "./preconditions.ts";
import { etagOf } from "../http/etag.ts";

export interface UpdateRequest {
  def: ResourceDefinition;
  company: Company;
  scope: Scope;
  id: number;
  body: unknown;
  dryRun: boolean;
  ifMatch: string | null;
}

function changesBetween(stored: StoredRecord, values: Record<string, unknown>): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const [field, to] of Object.entries(values)) {
    if (stored[field] !== to) changes[field] = { from: stored[field] ?? null, to };
  }
  return changes;
}

export async function updateRecordById(tx: Transaction, request: UpdateRequest): Promise<WriteResult> {
  const { def, company, scope, id, dryRun } = request;
  const stored = await findRecord(tx, def, scope, id, { forUpdate: true });
  if (!stored) throw notFound(def.singular.toLowerCase(), id);
  checkIfMatch(request.ifMatch, stored);
  const frozen = def.frozen?.(stored);
  if (frozen) throw frozen;

  const { values, errors } = validateBody(def, request.body, true);
  const changes = changesBetween(stored, values);
  const changed = Object.fromEntries(Object.entries(changes).map(([field, change]) => [field, change.to]));
  const merged: StoredRecord = { ...stored, ...changed };
  errors.push(...checkDateOrder(def, merged), ...(await checkReferences(tx, def, company, changed)));
  if (errors.length > 0) throw validationFailed(errors);
  const ruleBroken = def.updateRule?.(stored, values);
  if (ruleBroken) throw ruleBroken;
  checkTransition(def, id, stored.status, changed.status);
  await checkUnique(tx, def, company.id, changed, id);

  const hasChanges = Object.keys(changes).length > 0;
  let record = merged;
  if (!dryRun && hasChanges) {
    const updatedAt = await guardUnique(def, changed, () => updateRecord(tx, def, scope, id, changed));
    record = { ...merged, updated_at: updatedAt };
  }
  const written = !dryRun && hasChanges;
  return {
    status: 200,
    // The tag a GET would now send, so a client can chain If-Match updates without reading again.
    headers: dryRun ? undefined : { etag: etagOf(recordDocument(record)) },
    body: { data: { id, updated: written, dry_run: dryRun, changes, record } },
    changes: written ? [{ resource: def.name, action: "updated", record, changes }] : [],
  };
}
