// Upsert by external id (docs/writes-and-retries.md): the company's live record with this external_id is updated
// with the fields given (every PATCH rule applies), or, when there is none, one is created with
// them (every create rule applies): write-records.ts with one item. Two upserts racing to create
// the same external id meet on the unique index: the loser runs again, finds the winner's record
// and updates it instead. One that names no reference (on a plan whose quota does not limit the
// resource) decides on a read outside its transaction and joins the group commit, its update
// guarded as a PATCH's is (writes/row-versions.ts).
import type { Company } from "../auth/company.ts";
import type { WriteTransaction } from "../db/write-transaction.ts";
import { validationFailed } from "../refusals/catalogue.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import type { Shown } from "../resources/shown.ts";
import type { Scope } from "../resources/store.ts";
import type { Decided, WriteStore } from "./execute-write.ts";
import { createOutcome, type RecordOutcome, updateOutcome } from "./outcomes.ts";
import { singleWrite, writeRecords } from "./write-records.ts";

export interface UpsertRequest {
  def: ResourceDefinition;
  company: Company;
  scope: Scope;
  externalId: string;
  body: unknown;
  dryRun: boolean;
  ifMatch: string | null;
  shown?: Shown;
}

/** The body with the path's external id in it; a different one in the body is a 422. */
function withExternalId(body: unknown, externalId: string): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const given = (body as Record<string, unknown>).external_id;
  if (given !== undefined && given !== externalId) {
    throw validationFailed([
      {
        field: "external_id",
        code: "invalid_value",
        message:
          `external_id in the body ("${String(given)}") must match the one in the path ` +
          `("${externalId}"), or be left out.`,
      },
    ]);
  }
  return { ...body, external_id: externalId };
}

export async function upsertByExternalId(
  tx: WriteTransaction,
  store: Pick<WriteStore, "ids" | "outside">,
  request: UpsertRequest,
): Promise<Decided<RecordOutcome>> {
  const { dryRun } = request;
  const body = withExternalId(request.body, request.externalId);
  const writes = singleWrite(store.outside, request, body, "upsert", request.ifMatch);
  const { outcomes, plan } = await writeRecords(tx, store.ids, writes);
  const outcome = outcomes[0]!;
  if (outcome.error) throw outcome.error;
  const record = outcome.record!;
  return {
    outcome:
      outcome.status === 201
        ? createOutcome(record, dryRun)
        : updateOutcome(record, outcome.changes ?? {}, dryRun),
    plan,
  };
}
