// Upsert by external id (CONTRACT 11): the company's live record with this external_id is updated
// with the fields given (every PATCH rule applies), or, when there is none, one is created with
// them (every create rule applies). Two upserts racing to create the same external id meet on the
// unique index: the loser finds the winner's record and updates it instead.
import type { Company } from "../auth/company.ts";
import type { Transaction } from "../db/client.ts";
import { ApiError, validationFailed } from "../http/problem.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { findIdBy, type Scope } from "../resources/store.ts";
import { createRecord } from "./create.ts";
import type { QuotaLedger } from "./quotas.ts";
import type { WriteResult } from "./idempotency.ts";
import { updateRecordById } from "./update.ts";

export interface UpsertRequest {
  def: ResourceDefinition;
  company: Company;
  scope: Scope;
  externalId: string;
  body: unknown;
  dryRun: boolean;
  ifMatch: string | null;
  location: (id: number) => string;
  quota?: QuotaLedger;
}

/** The body with the path's external id in it; a different one in the body is a 422. */
function withExternalId(body: unknown, externalId: string): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const given = (body as Record<string, unknown>).external_id;
  if (given !== undefined && given !== externalId) {
    throw validationFailed([{ field: "external_id", code: "invalid_value", message: `external_id in the body ("${String(given)}") must match the one in the path ("${externalId}"), or be left out.` }]);
  }
  return { ...body, external_id: externalId };
}

export async function upsertByExternalId(tx: Transaction, request: UpsertRequest): Promise<WriteResult> {
  const { def, company, scope, externalId, dryRun } = request;
  const body = withExternalId(request.body, externalId);
  for (let attempt = 0; ; attempt++) {
    const id = await findIdBy(tx, def, scope, "external_id", externalId, { forUpdate: true });
    if (id !== undefined) return updateRecordById(tx, { def, company, scope, id, body, dryRun, ifMatch: request.ifMatch });
    // If-Match asks for the record as read; there is none to match.
    if (request.ifMatch !== null) throw new ApiError(412, "precondition_failed", `No live ${def.singular.toLowerCase()} has external_id "${externalId}", so If-Match cannot match.`);
    try {
      return await createRecord(tx, { def, company, scope, body, dryRun, location: request.location, quota: request.quota });
    } catch (error) {
      const lostTheRace = error instanceof ApiError && error.code === "unique_violation" && error.errors?.[0]?.field === "external_id";
      if (!lostTheRace || attempt > 0) throw error;
    }
  }
}
