// Create: one record under every create rule, written unless dry-run (write-records.ts, one item).
import type { Company } from "../auth/company.ts";
import type { WriteTransaction } from "../db/write-transaction.ts";
import { etagOf } from "../http/etag.ts";
import type { ResourceDefinition, StoredRecord } from "../resources/definition.ts";
import type { Scope } from "../resources/store.ts";
import type { WriteOutcome, WriteStore } from "./execute-write.ts";
import type { WritePlan } from "./plan.ts";
import { recordDocument } from "./preconditions.ts";
import { writeRecords } from "./write-records.ts";

export interface CreateRequest {
  def: ResourceDefinition;
  company: Company;
  scope: Scope;
  body: unknown;
  dryRun: boolean;
  /** The path of the collection the record is created in: its Location is this path and its id. */
  collection: string;
  /** `Prefer: return=representation`: the answer carries the whole record. */
  representation: boolean;
}

export const DRY_RUN_CREATED = { data: { id: null, created: false, dry_run: true } };

/**
 * 201 with Location (in `collection`) and the record's ETag (and with `representation`, the record
 * itself); an upsert's also says `updated: false`.
 */
export function createdAnswer(
  record: StoredRecord,
  collection: string,
  representation: boolean,
  plan: WritePlan,
  upsert = false,
): WriteOutcome {
  return {
    status: 201,
    body: {
      data: {
        id: record.id,
        created: true,
        ...(upsert ? { updated: false } : {}),
        dry_run: false,
        ...(representation ? { record } : {}),
      },
    },
    headers: { location: `${collection}/${record.id}`, etag: etagOf(recordDocument(record)) },
    plan,
  };
}

export async function createRecord(
  tx: WriteTransaction,
  store: Pick<WriteStore, "ids" | "outside">,
  request: CreateRequest,
): Promise<WriteOutcome> {
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
  if (dryRun) return { status: 200, body: DRY_RUN_CREATED };
  return createdAnswer(outcome!.record!, request.collection, request.representation, plan);
}
