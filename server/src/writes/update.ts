// PATCH: merge the sent fields into the stored record, with every rule, unless dry-run. The record,
// the references and unique values the body names are read in one round trip; the update, its
// event and the COMMIT go in another. A body that names no reference is decided on a read outside
// the transaction, and its update writes only the row as read (writes/row-versions.ts), so it
// joins its company's group commit; one that names a reference reads in the transaction, with the
// record locked and the references share-locked.
import type { Company } from "../auth/company.ts";
import type { WriteTransaction } from "../db/write-transaction.ts";
import { notFound } from "../refusals/catalogue.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import type { Scope } from "../resources/store.ts";
import type { Decided } from "./execute-write.ts";
import { updateRules } from "./item-rules.ts";
import { lookUp, readableOutside } from "./lookups.ts";
import { type RecordOutcome, updateOutcome } from "./outcomes.ts";
import type { Reads } from "./outside-reads.ts";
import { WritePlan } from "./plan.ts";
import { checkIfMatch } from "./preconditions.ts";
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

export async function updateRecordById(
  tx: WriteTransaction,
  outside: Reads,
  request: UpdateRequest,
): Promise<Decided<RecordOutcome>> {
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
  return { outcome: updateOutcome(record, changes, dryRun), plan };
}
