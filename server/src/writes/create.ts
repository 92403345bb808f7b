// Create: one record under every create rule, written unless dry-run (write-records.ts, one item).
import type { Company } from "../auth/company.ts";
import type { WriteTransaction } from "../db/write-transaction.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import type { Scope } from "../resources/store.ts";
import type { Decided, WriteStore } from "./execute-write.ts";
import { createOutcome, type RecordOutcome } from "./outcomes.ts";
import { writeRecords } from "./write-records.ts";

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
  const { def, company, scope, dryRun } = request;
  const {
    outcomes: [outcome],
    plan,
  } = await writeRecords(tx, store.ids, {
    outside: store.outside,
    def,
    company,
    scope,
    dryRun,
    items: [request.body],
    upsert: false,
  });
  if (outcome!.error) throw outcome!.error;
  return { outcome: createOutcome(outcome!.record!, dryRun), plan };
}
