// Create: one record under every create rule, written unless dry-run (write-records.ts, one item).
import type { Company } from "../auth/company.ts";
import type { WriteTransaction } from "../db/write-transaction.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import type { Scope } from "../resources/store.ts";
import type { Decided, WriteStore } from "./execute-write.ts";
import { createOutcome, type RecordOutcome } from "./outcomes.ts";
import { singleWrite, writeRecords } from "./write-records.ts";

export interface CreateRequest {
  def: ResourceDefinition;
  company: Company;
  scope: Scope;
  body: unknown;
  dryRun: boolean;
}

export async function createRecord(
  tx: WriteTransaction,
  store: Pick<WriteStore, "ids" | "outside">,
  request: CreateRequest,
): Promise<Decided<RecordOutcome>> {
  const writes = singleWrite(store.outside, request, request.body, "create");
  const { outcomes, plan } = await writeRecords(tx, store.ids, writes);
  const outcome = outcomes[0]!;
  if (outcome.error) throw outcome.error;
  return { outcome: createOutcome(outcome.record!, request.dryRun), plan };
}
