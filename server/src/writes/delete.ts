// DELETE: always soft; refused while protected history references the record.
import type { Company } from "../auth/company.ts";
import type { Transaction } from "../db/client.ts";
import { ApiError, notFound } from "../http/problem.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { definitionOf } from "../resources/registry.ts";
import { findRecord, findRecords, referencingIds, softDelete, type Scope } from "../resources/store.ts";
import type { RecordChange } from "./changes.ts";
import type { WriteResult } from "./idempotency.ts";
import { releaseQuota } from "./quotas.ts";
import { checkIfMatch } from "./preconditions.ts";

export interface DeleteRequest {
  def: ResourceDefinition;
  company: Company;
  scope: Scope;
  id: number;
  dryRun: boolean;
  ifMatch: string | null;
}

interface RecordRef {
  resource: string;
  id: number;
}

export async function deleteRecordById(tx: Transaction, request: DeleteRequest): Promise<WriteResult> {
  const { def, company, scope, id, dryRun } = request;
  const stored = await findRecord(tx, def, scope, id, { forUpdate: true });
  if (!stored) throw notFound(def.singular.toLowerCase(), id);
  checkIfMatch(request.ifMatch, stored);

  // Lock every live row that decides the delete (a rental being billed right now) in one
  // ordered read, so a concurrent change to one of them is either waited for and seen here,
  // or waits for this delete and finds its row gone.
  const decisive = new Map(def.dependents.filter((d) => d.effect !== "keep").map((d) => [d.table, d]));
  for (const dependent of decisive.values()) await referencingIds(tx, dependent.table, company.id, dependent.column, id, {}, true);

  const found = await Promise.all(def.dependents.map(async (dependent) => ({
    dependent,
    ids: await referencingIds(tx, dependent.table, company.id, dependent.column, id, dependent.where),
  })));
  const refs = (effect: string): RecordRef[] => found
    .filter(({ dependent }) => dependent.effect === effect)
    .flatMap(({ dependent, ids }) => ids.map((refId) => ({ resource: definitionOf(dependent.table).name, id: refId })));

  const blockers = refs("block");
  if (blockers.length > 0) {
    const reasons = [...new Set(found.filter(({ dependent, ids }) => dependent.effect === "block" && ids.length > 0).map(({ dependent }) => dependent.reason ?? `referenced by ${definitionOf(dependent.table).name}`))];
    throw new ApiError(409, "delete_blocked",
      `${def.singular} ${id} cannot be deleted: ${reasons.join("; ")} (${blockers.map((ref) => `${ref.resource} ${ref.id}`).join(", ")}).`,
      undefined, {}, { blockers });
  }
  const cascade = found.filter(({ dependent }) => dependent.effect === "cascade");
  const wouldDelete = [{ resource: def.name, id }, ...refs("cascade")];
  const wouldKeep = refs("keep");

  const changes: RecordChange[] = [];
  if (!dryRun) {
    for (const { dependent, ids } of cascade) {
      const dependentDef = definitionOf(dependent.table);
      for (const record of await findRecords(tx, dependentDef, company.id, ids)) changes.push({ resource: dependentDef.name, action: "deleted", record });
      await softDelete(tx, dependent.table, company.id, ids);
    }
    await softDelete(tx, def.table, company.id, [id]);
    await releaseQuota(tx, def, company.id);
    changes.push({ resource: def.name, action: "deleted", record: stored });
  }
  return {
    status: 200,
    body: { data: { id, deleted: !dryRun, dry_run: dryRun, mode: "soft", would_delete: wouldDelete, would_keep: wouldKeep } },
    changes,
  };
}
