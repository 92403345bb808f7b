// PATCH: merge the sent fields into the stored record, with every rule, unless dry-run: an update
// item of write-records.ts whose record the path names (of the path's parent, for a
// sub-collection). The record, the references and unique values the body names are read in one
// round trip; the update, its event and the COMMIT go in another. A body that names no reference is
// decided on a read outside the transaction (concurrent PATCHes of a company's records read
// together, writes/outside-reads.ts), and its update writes only the row as read
// (writes/row-versions.ts), so it joins its company's group commit; one that names a reference
// reads in the transaction, with the record locked and the references share-locked.
import type { Company } from "../auth/company.ts";
import type { WriteTransaction } from "../db/write-transaction.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import type { Shown } from "../resources/shown.ts";
import type { Scope } from "../resources/store.ts";
import type { Decided, WriteStore } from "./execute-write.ts";
import { type RecordOutcome, updateOutcome } from "./outcomes.ts";
import { singleWrite, writeRecords } from "./write-records.ts";

export interface UpdateRequest {
  def: ResourceDefinition;
  company: Company;
  scope: Scope;
  id: number;
  body: unknown;
  dryRun: boolean;
  ifMatch: string | null;
  shown?: Shown;
}

export async function updateRecordById(
  tx: WriteTransaction,
  store: Pick<WriteStore, "ids" | "outside">,
  request: UpdateRequest,
): Promise<Decided<RecordOutcome>> {
  const { body, ifMatch, id } = request;
  const writes = singleWrite(store.outside, request, body, "update", ifMatch, id);
  const { outcomes, plan } = await writeRecords(tx, store.ids, writes);
  const outcome = outcomes[0]!;
  if (outcome.error) throw outcome.error;
  return { outcome: updateOutcome(outcome.record!, outcome.changes ?? {}, request.dryRun), plan };
}
