// The documentation of the five CRUD operations of a definition: names, parameters and the
// error codes its rules can produce, derived from the definition like the routes themselves.
import type { DocumentDecoration } from "elysia";
import type { ParamParser } from "../http/query.ts";
import { ADMISSION_ERRORS, mergeErrors, operationDetail, type ErrorCodes } from "../http/operation-docs.ts";
import type { Operation, ResourceDefinition } from "../resources/definition.ts";
import { uniqueFields } from "../resources/fields.ts";
import { pascal, withArticle } from "../resources/naming.ts";
import { definitionOf } from "../resources/registry.ts";
import { createBodySchema, sparseRecordSchema, updateBodySchema } from "../resources/schemas.ts";
import type { TSchema } from "@sinclair/typebox";
import { itemEnvelope, listEnvelope } from "../http/envelopes.ts";
import { SPARSE_MEDIA_TYPE } from "../http/respond.ts";
import { batchBodySchema } from "./batch-schemas.ts";
import { MAX_BATCH_ITEMS } from "../writes/batch.ts";

const WRITE_ERRORS: ErrorCodes = {
  400: ["invalid_query", "invalid_idempotency_key"],
  409: ["idempotency_key_reuse", "idempotency_in_progress"],
};
const BODY_ERRORS: ErrorCodes = {
  400: ["malformed_json"],
  413: ["payload_too_large"],
  415: ["unsupported_media_type"],
  422: ["validation_failed"],
};

function operationIds(def: ResourceDefinition): Record<Operation, string> {
  const owner = def.parent ? pascal(definitionOf(def.parent.table).name) : "";
  return {
    list: `list${owner}${pascal(def.name)}`,
    get: `get${owner}${def.singular}`,
    create: `create${owner}${def.singular}`,
    update: `update${owner}${def.singular}`,
    delete: `delete${owner}${def.singular}`,
    batch: `batch${owner}${pascal(def.name)}`,
    upsert: `upsert${owner}${def.singular}ByExternalId`,
  };
}

/** The errors an operation of this definition can answer with, beyond admission. */
function operationErrors(def: ResourceDefinition, operation: Operation): ErrorCodes {
  const parentMissing: ErrorCodes = def.parent ? { 404: ["not_found"] } : {};
  const unique = uniqueFields(def).length > 0 ? ["unique_violation"] : [];
  switch (operation) {
    case "list": return mergeErrors({ 400: ["invalid_query"] }, parentMissing);
    case "get": return { 400: ["invalid_query"], 404: ["not_found"] };
    case "create": return mergeErrors(WRITE_ERRORS, BODY_ERRORS, parentMissing, {
      402: def.quota ? ["quota_exceeded"] : [],
      409: [...(def.status && def.status.initial.length < def.status.values.length ? ["invalid_transition"] : []), ...unique],
    });
    case "update": return mergeErrors(WRITE_ERRORS, BODY_ERRORS, {
      404: ["not_found"],
      409: [...(def.status?.transitions ? ["invalid_transition"] : []), ...(def.conflicts ?? []), ...unique],
      412: ["precondition_failed"],
    });
    case "delete": return mergeErrors(WRITE_ERRORS, {
      404: ["not_found"],
      409: def.dependents.some((dependent) => dependent.effect === "block") ? ["delete_blocked"] : [],
      412: ["precondition_failed"],
    });
    // Refused items are reported inside the 200 answer; only an atomic batch refuses as a whole.
    case "batch": return mergeErrors(WRITE_ERRORS, BODY_ERRORS, { 422: ["batch_failed"] });
    case "upsert": return mergeErrors(operationErrors(def, "create"), operationErrors(def, "update"));
  }
}

const SPARSE_NOTE = `Without \`fields\` the answer is \`application/json\` with whole records; with \`fields\` it is \`${SPARSE_MEDIA_TYPE}\`: the same envelope with only the fields asked for (and \`id\`).`;

const sparseContent = (schema: TSchema) => ({ [SPARSE_MEDIA_TYPE]: { schema } });

const DRY_RUN_NOTE = "With `X-Dry-Run: 1` (or `dry_run=1`) every rule runs and nothing is written.";

export function crudDetail(def: ResourceDefinition, operation: Operation, query: Record<string, ParamParser<unknown>>): DocumentDecoration {
  const what = def.singular.toLowerCase();
  const tags = [def.tag ?? (def.parent ? definitionOf(def.parent.table).name : def.name)];
  const errors = mergeErrors(ADMISSION_ERRORS, operationErrors(def, operation));
  const common = { operationId: operationIds(def)[operation], tags, query, errors };
  const notModified = { description: "Not Modified: the ETag sent in If-None-Match still matches; empty body.", headers: ["ETag" as const] };
  const writeHeaders = ["IdempotencyKey" as const, "XDryRun" as const];
  switch (operation) {
    case "list": return operationDetail({
      ...common,
      summary: `List ${def.name}`,
      description: `${def.description} Ordered by id ascending; read meta.total, then raise offset by limit until it reaches total to visit every record once.`,
      headers: ["IfNoneMatch"],
      responses: { 200: { description: `A page of ${def.name}. ${SPARSE_NOTE}`, headers: ["ETag"], content: sparseContent(listEnvelope(sparseRecordSchema(def), `${def.singular}SparseList`)) }, 304: notModified },
    });
    case "get": return operationDetail({
      ...common,
      summary: `Get one ${what}`,
      description: `The ${what} with this id, if it is a live record of your company (else 404: another company's ids are unknown here). \`fields\` returns a subset; the ETag serves If-None-Match (304) and If-Match on writes.`,
      headers: ["IfNoneMatch"],
      responses: { 200: { description: `The ${what}. ${SPARSE_NOTE}`, headers: ["ETag"], content: sparseContent(itemEnvelope(sparseRecordSchema(def), `${def.singular}SparseItem`)) }, 304: notModified },
    });
    case "create": return operationDetail({
      ...common,
      summary: `Create ${withArticle(what)}`,
      description: `Send the ${def.required.join(" and ")} and any other writable field; unknown or read-only fields are a 422. ${DRY_RUN_NOTE}`,
      headers: writeHeaders,
      body: createBodySchema(def),
      responses: {
        201: { description: "Created; Location names the new record.", headers: ["Location", "IdempotentReplayed"] },
        200: { description: "Dry-run: the create would succeed; nothing was written (`id` is null).", headers: ["IdempotentReplayed"] },
      },
    });
    case "update": return operationDetail({
      ...common,
      summary: `Update ${withArticle(what)} (merge)`,
      description: `Only the fields sent change; \`null\` clears an optional field. Setting the current value is a no-op (\`updated: false\`). ${DRY_RUN_NOTE}`,
      headers: [...writeHeaders, "IfMatch"],
      body: updateBodySchema(def),
      responses: { 200: { description: "The changes and the record after them (or as it would be, in a dry-run). ETag (absent in a dry-run) is the tag a GET of the record now sends: the next If-Match.", headers: ["ETag", "IdempotentReplayed"] } },
    });
    case "delete": return operationDetail({
      ...common,
      summary: `Delete ${withArticle(what)} (soft)`,
      description: `The record is kept for history but is gone from the API (GET answers 404, lists skip it, references to it are refused). would_delete lists what goes with it, would_keep the live records that reference it and stay. ${DRY_RUN_NOTE}`,
      headers: [...writeHeaders, "IfMatch"],
      responses: { 200: { description: "What was deleted (or would be, in a dry-run).", headers: ["IdempotentReplayed"] } },
    });
    case "batch": return operationDetail({
      ...common,
      summary: `Create or upsert up to ${MAX_BATCH_ITEMS} ${def.name}`,
      description: `Items are written in order in one transaction, each seeing the ones before it (quotas, unique fields). With \`atomic: false\` (default) each item is written or refused on its own and the answer is 200 with every item's result; with \`atomic: true\` any refused item refuses the whole batch (422 batch_failed, the results in \`data\`) and nothing is written. \`on_conflict: "update"\` upserts each item by its \`external_id\`. A dry-run runs the whole batch in order (duplicates inside it and quota overruns are found) and writes nothing. One Idempotency-Key covers the batch; the batch counts as one request of the rate limit.`,
      headers: writeHeaders,
      body: batchBodySchema(def),
      responses: { 200: { description: "Every item's result, in order.", headers: ["IdempotentReplayed"] } },
    });
    case "upsert": return operationDetail({
      ...common,
      summary: `Create or update ${withArticle(what)} by external id`,
      description: `When no live ${what} of your company has this external_id, creates one from the body (201, as a create); else updates it with the fields given (200, as a PATCH: transition and lock rules apply). With If-Match, the record must exist and match. ${DRY_RUN_NOTE}`,
      headers: [...writeHeaders, "IfMatch"],
      body: createBodySchema(def),
      responses: {
        201: { description: "Created; Location names the new record.", headers: ["Location", "IdempotentReplayed"] },
        200: { description: "Updated (or, in a dry-run, what a create or update would do).", headers: ["ETag", "IdempotentReplayed"] },
      },
    });
  }
}
