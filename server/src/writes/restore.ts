// Restore: a soft-deleted record back as it was (its id, fields and external_id), checked as its
// create would be, with the records deleted together with it (write-records.ts, one item).
import type { Company } from "../auth/company.ts";
import type { IdAllocator } from "../db/ids.ts";
import type { WriteTransaction } from "../db/write-transaction.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import type { Scope } from "../resources/store.ts";
import type { Decided } from "./execute-write.ts";
import type { RecordOutcome } from "./outcomes.ts";
import { writeRecords } from "./write-records.ts";

export interface RestoreRequest {
  def: ResourceDefinition;
  company: Company;
  scope: Scope;
  id: number;
  dryRun: boolean;
}

/** The record as it is back (or would be) and what comes back with it. */
export async function restoreRecordById(
  tx: WriteTransaction,
  ids: IdAllocator,
  request: RestoreRequest,
): Promise<Decided<RecordOutcome>> {
  const { def, company, scope, id, dryRun } = request;
  const { outcomes, plan, cascaded } = await writeRecords(tx, ids, {
    def,
    company,
    scope,
    dryRun,
    items: [{ id }],
    kind: "restore",
  });
  const outcome = outcomes[0]!;
  if (outcome.error) throw outcome.error;
  const record = outcome.record!;
  return {
    outcome: {
      kind: dryRun ? "restore_previewed" : "restored",
      record,
      wouldRestore: [
        { resource: def.name, id },
        ...(cascaded ?? []).flatMap(({ def: dependent, records }) =>
          records.map((each) => ({ resource: dependent.name, id: each.id })),
        ),
      ],
    },
    plan,
  };
}
