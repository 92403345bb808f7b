// DELETE: always soft; refused while protected history references the record.
import type { Company } from "../auth/company.ts";
import type { WriteTransaction } from "../db/write-transaction.ts";
import { deleteBlocked, notFound } from "../refusals/catalogue.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { findRecord, findRecords, referencingIds, type Scope } from "../resources/store.ts";
import type { Decided } from "./execute-write.ts";
import type { RecordRef } from "../refusals/problem-schema.ts";
import type { RecordOutcome } from "./outcomes.ts";
import { WritePlan } from "./plan.ts";
import type { Shown } from "../resources/shown.ts";
import { checkIfMatch } from "./preconditions.ts";
import { softDeleteRecords } from "./record-statements.ts";
import { uniqueValuesAfter } from "./custom-values.ts";

export interface DeleteRequest {
  def: ResourceDefinition;
  company: Company;
  scope: Scope;
  id: number;
  dryRun: boolean;
  ifMatch: string | null;
  /** What the deleting token sees of the record: its If-Match tag is the one its GET sends. */
  shown?: Shown;
}

export async function deleteRecordById(
  tx: WriteTransaction,
  request: DeleteRequest,
): Promise<Decided<RecordOutcome>> {
  const { def, company, scope, id, dryRun } = request;
  const db = tx.db;
  const stored = await findRecord(db, def, scope, id, { forUpdate: true });
  if (!stored) throw notFound(def.singular.toLowerCase(), id);
  checkIfMatch(request.ifMatch, stored, request.shown);

  // Lock every live row that decides the delete (a rental being billed right now) in one
  // ordered read, so a concurrent change to one of them is either waited for and seen here,
  // or waits for this delete and finds its row gone.
  const decisive = new Map(
    def.dependents.filter((d) => d.effect !== "keep").map((d) => [d.resource, d]),
  );
  for (const dependent of decisive.values())
    await referencingIds(db, dependent.resource.table, company.id, dependent.column, id, {}, true);

  const found = await Promise.all(
    def.dependents.map(async (dependent) => ({
      dependent,
      ids: await referencingIds(
        db,
        dependent.resource.table,
        company.id,
        dependent.column,
        id,
        dependent.where,
      ),
    })),
  );
  const refs = (effect: string): RecordRef[] =>
    found
      .filter(({ dependent }) => dependent.effect === effect)
      .flatMap(({ dependent, ids }) =>
        ids.map((refId) => ({ resource: dependent.resource.name, id: refId })),
      );

  const blockers = refs("block");
  if (blockers.length > 0) {
    const reasons = [
      ...new Set(
        found
          .filter(({ dependent, ids }) => dependent.effect === "block" && ids.length > 0)
          .map(({ dependent }) => dependent.reason ?? `referenced by ${dependent.resource.name}`),
      ),
    ];
    throw deleteBlocked(def.singular, id, reasons, blockers);
  }
  const wouldDelete = [{ resource: def.name, id }, ...refs("cascade")];
  const wouldKeep = refs("keep");

  const plan = new WritePlan();
  if (!dryRun) {
    const at = new Date();
    for (const { dependent, ids } of found.filter(
      ({ dependent }) => dependent.effect === "cascade",
    )) {
      if (ids.length === 0) continue;
      const { resource } = dependent;
      for (const record of await findRecords(db, resource, company.id, ids))
        plan.changes.push({ resource: resource.name, action: "deleted", record });
      plan.statements.push(softDeleteRecords(resource.table, company.id, ids, at));
      plan.statements.push(...uniqueValuesAfter(resource, company.id, ids));
      plan.count(resource, -ids.length);
    }
    plan.statements.push(softDeleteRecords(def.table, company.id, [id], at));
    plan.statements.push(...uniqueValuesAfter(def, company.id, [id]));
    plan.count(def, -1);
    plan.changes.push({ resource: def.name, action: "deleted", record: stored });
  }
  return {
    outcome: { kind: dryRun ? "delete_previewed" : "deleted", id, wouldDelete, wouldKeep },
    plan,
  };
}
