// PATCH: merge the sent fields into the stored record, with every rule, unless dry-run. The record,
// the references and unique values the body names are read in one round trip; the update, its
// event and the COMMIT go in another. A body that names no reference is decided on a read outside
// the transaction, and its update writes only the row as read (writes/row-versions.ts), so it
// joins its company's group commit; one that names a reference reads in the transaction, with the
// record locked and the references share-locked.
import type { Company } from "../auth/company.ts";
import type { WriteTransaction } from "../db/write-transaction.ts";
import { etagOf } from "../http/etag.ts";
import { notFound } from "../refusals/catalogue.ts";
import type { ResourceDefinition, StoredRecord } from "../resources/definition.ts";
import type { Scope } from "../resources/store.ts";
import type { FieldChange } from "../events/changes.ts";
import type { WriteOutcome } from "./execute-write.ts";
import { updateRules } from "./item-rules.ts";
import { lookUp, readableOutside } from "./lookups.ts";
import type { Reads } from "./outside-reads.ts";
import { WritePlan } from "./plan.ts";
import { checkIfMatch, recordDocument } from "./preconditions.ts";
import { updateRecord } from "./record-statements.ts";
import { nextVersion, rowKey } from "./row-versions.ts";

export interface UpdateRequest {
  def: ResourceDefinition;
  company: Company;
  scope: Scope;
  id: number;
  body: unknown;
  dryRun: boolean;
  ifMatch: string | null;
}

/**
 * 200 with the changes and the record after them; a real write also answers the record's new ETag.
 * An upsert's also says `created: false`.
 */
export function updatedAnswer(
  record: StoredRecord,
  changes: Record<string, FieldChange>,
  dryRun: boolean,
  upsert = false,
): WriteOutcome {
  const written = !dryRun && Object.keys(changes).length > 0;
  return {
    status: 200,
    // The tag a GET would now send, so a client can chain If-Match updates without reading again.
    headers: dryRun ? undefined : { etag: etagOf(recordDocument(record)) },
    body: {
      data: {
        id: record.id,
        ...(upsert ? { created: false } : {}),
        updated: written,
        dry_run: dryRun,
        changes,
        record,
      },
    },
  };
}

export async function updateRecordById(
  tx: WriteTransaction,
  outside: Reads,
  request: UpdateRequest,
): Promise<WriteOutcome> {
  const { def, company, scope, id, dryRun } = request;
  const reading = { def, company, bodies: [request.body], creates: false };
  const decidedOutside = dryRun || readableOutside(reading);
  const lookups = await lookUp(decidedOutside ? outside : tx, {
    ...reading,
    dryRun,
    outside: decidedOutside,
    recordId: id,
    parentId: scope.parentId,
  });
  const stored = lookups.records.get(id);
  if (!stored) throw notFound(def.singular.toLowerCase(), id);
  checkIfMatch(request.ifMatch, stored);
  const { changes, changed, merged } = updateRules(
    { def, company, lookups, unique: lookups.unique },
    stored,
    request.body,
  );
  const plan = new WritePlan();
  let record = merged;
  if (!dryRun && Object.keys(changes).length > 0) {
    const at = nextVersion(stored.updated_at, new Date());
    record = { ...merged, updated_at: at.toISOString() };
    plan.statements.push(updateRecord(def, company.id, id, changed, at, stored.updated_at));
    plan.guarded.push(rowKey(def, id));
    plan.changes.push({ resource: def.name, action: "updated", record, changes });
  }
  return { ...updatedAnswer(record, changes, dryRun), plan };
}
