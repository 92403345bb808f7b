// Create: validate, check references, states, uniqueness and quota; insert unless dry-run.
import type { Company } from "../auth/company.ts";
import type { Transaction } from "../db/client.ts";
import { validationFailed } from "../http/problem.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { createDefaults } from "../resources/fields.ts";
import { insertRecord, type Scope } from "../resources/store.ts";
import { checkDateOrder, validateBody } from "../resources/validation.ts";
import { checkInitialStatus, checkReferences, checkUnique, guardUnique } from "./checks.ts";
import type { WriteResult } from "./idempotency.ts";
import { type QuotaLedger, takeQuota } from "./quotas.ts";

export interface CreateRequest {
  def: ResourceDefinition;
  company: Company;
  scope: Scope;
  body: unknown;
  dryRun: boolean;
  location: (id: number) => string;
  /** Many creates in one transaction (a batch) take their slots from one ledger. */
  quota?: QuotaLedger;
}

export async function createRecord(tx: Transaction, request: CreateRequest): Promise<WriteResult> {
  const { def, company, scope, dryRun } = request;
  const { values, errors } = validateBody(def, request.body, false);
  const record = { ...createDefaults(def), ...values };
  const parent = def.parent && scope.parentId !== undefined ? { [def.parent.column]: scope.parentId } : {};
  // Every field error in one answer: the body's own, date order and references together.
  errors.push(...checkDateOrder(def, record), ...(await checkReferences(tx, def, company, { ...record, ...parent })));
  if (errors.length > 0) throw validationFailed(errors);
  checkInitialStatus(def, record.status);
  await checkUnique(tx, def, company.id, record);
  // A quota that can refuse is taken before the insert, so a refused create leaves no trace (not
  // even a used id). An unlimited plan's counter cannot refuse: it is taken after the insert, so
  // the company's counter row stays locked only for the end of the transaction, not the insert.
  const quotaAfterInsert = !request.quota && !dryRun && def.quota !== undefined && company.limits[def.quota] === null;
  if (request.quota) await request.quota.take(def);
  else if (!quotaAfterInsert) await takeQuota(tx, def, company, { dryRun });
  if (dryRun) return { status: 200, body: { data: { id: null, created: false, dry_run: true } } };

  const created = await guardUnique(def, record, () => insertRecord(tx, def, company.id, { ...record, ...parent })).catch((error: unknown) => {
    request.quota?.release(def);
    throw error;
  });
  if (quotaAfterInsert) await takeQuota(tx, def, company);
  return {
    status: 201,
    body: { data: { id: created.id, created: true, dry_run: false } },
    headers: { location: request.location(created.id) },
    changes: [{ resource: def.name, action: "created", record: created }],
  };
}
