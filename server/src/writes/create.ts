// Create: validate, check references, states, uniqueness and quota; insert unless dry-run.
import type { Company } from "../auth/company.ts";
import type { Transaction } from "../db/client.ts";
import { validationFailed } from "../http/problem.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { checkDateOrder, createDefaults, normalizeInput } from "../resources/fields.ts";
import { insertRecord, type Scope } from "../resources/store.ts";
import { checkInitialStatus, checkQuota, checkReferences, checkUnique, isDuplicateKey, uniqueViolation } from "./checks.ts";
import type { WriteResult } from "./execute.ts";

export interface CreateRequest {
  def: ResourceDefinition;
  company: Company;
  scope: Scope;
  body: Record<string, unknown>;
  dryRun: boolean;
  location: (id: number) => string;
}

export async function createRecord(tx: Transaction, request: CreateRequest): Promise<WriteResult> {
  const { def, company, scope, dryRun } = request;
  const { values, errors } = normalizeInput(def, request.body);
  const record = { ...createDefaults(def), ...values };
  const parent = def.parent && scope.parentId !== undefined ? { [def.parent.column]: scope.parentId } : {};
  errors.push(...checkDateOrder(def, record), ...(await checkReferences(tx, def, company.id, { ...record, ...parent })));
  if (errors.length > 0) throw validationFailed(errors);
  checkInitialStatus(def, record.status);
  await checkUnique(tx, def, company.id, record);
  await checkQuota(tx, def, company);
  if (dryRun) return { status: 200, body: { data: { id: null, created: false, dry_run: true } } };

  let id: number;
  try {
    id = await insertRecord(tx, def, { ...record, ...parent, company_id: company.id });
  } catch (error) {
    // Two creates racing for one code both pass the check; the unique index stops the second.
    const unique = Object.entries(def.fields).find(([, spec]) => spec.type === "text" && spec.unique);
    if (isDuplicateKey(error) && unique) throw uniqueViolation(def, unique[0], record[unique[0]]);
    throw error;
  }
  return { status: 201, body: { data: { id, created: true, dry_run: false } }, headers: { location: request.location(id) } };
}
