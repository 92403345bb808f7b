// What the documentation of each operation of a resource says beyond its name, tags, parameters,
// refusals and scope (crud-docs.ts): its summary and description, the headers it reads and sends,
// its body and its answers, written once for every definition.
import type { TSchema } from "@sinclair/typebox";
import { eventType } from "../events/event-log.ts";
import { itemEnvelope, listEnvelope } from "../http/envelopes.ts";
import type { OperationDocFields } from "../http/operation-docs.ts";
import { SPARSE_MEDIA_TYPE } from "../http/respond.ts";
import type { Operation, ResourceDefinition } from "../resources/definition.ts";
import { uniqueFields, writableFields } from "../resources/fields.ts";
import { withArticle } from "../resources/naming.ts";
import { createBodySchema, sparseRecordSchema, updateBodySchema } from "../resources/schemas.ts";
import { MAX_BATCH_ITEMS } from "../writes/batch.ts";
import { aggregateText } from "./aggregate-docs.ts";
import { batchBodySchema } from "./batch-schemas.ts";

/** An operation's documentation without what crudDetail adds to every one. */
type OperationText = Omit<OperationDocFields, "operationId" | "tags" | "query" | "refusals">;

/**
 * How a spreadsheet's columns map to the batch's fields, for importers (the CLI reads it from the
 * document): other header names of fields, the unique fields, and reference columns that name the
 * referenced record (`trade` by its name instead of `trade_id`).
 */
function importColumns(def: ResourceDefinition) {
  const fields = writableFields(def);
  return {
    aliases: Object.fromEntries(
      fields.flatMap(([name, spec]) => (spec.aliases ?? []).map((alias) => [alias, name])),
    ),
    unique: uniqueFields(def),
    references: Object.fromEntries(
      fields.flatMap(([name, spec]) => {
        if (spec.type !== "ref") return [];
        const target = spec.target;
        const match = [
          target.required[0]!,
          ...("external_id" in target.fields ? ["external_id"] : []),
        ];
        return [[name, { column: name.replace(/_id$/, ""), path: `/v1/${target.name}`, match }]];
      }),
    ),
  };
}

const SPARSE_NOTE =
  `Without \`fields\` the answer is \`application/json\` with whole records; ` +
  `with \`fields\` it is \`${SPARSE_MEDIA_TYPE}\`: the same envelope with only the fields ` +
  `asked for (and \`id\`). A client whose \`Accept\` names \`application/json\` and not the ` +
  `sparse type gets those fields as \`application/json\`.`;

const sparseContent = (schema: TSchema) => ({ [SPARSE_MEDIA_TYPE]: { schema } });

const DRY_RUN_NOTE = "With `X-Dry-Run: 1` (or `dry_run=1`) every rule runs and nothing is written.";

const notModified = {
  description: "Not Modified: the ETag sent in If-None-Match still matches; empty body.",
  headers: ["ETag" as const],
};

const writeHeaders = ["IdempotencyKey" as const, "XDryRun" as const];

/** A list: its order, the two ways to visit every record, and the sparse answer of `fields`. */
function listText(def: ResourceDefinition): OperationText {
  return {
    summary: `List ${def.name}`,
    description:
      `${def.description} Ordered by id ascending, or by \`sort\` (then page ` +
      `with offset, or with after set to each page's meta.next_cursor). Two ways visit ` +
      `every record once in id order: after_id=0, then the meta.next_after_id of each ` +
      `page until a page has none (each page costs the same however deep it is; the way ` +
      `for whole collections); or read meta.total, then raise offset by limit until it ` +
      `reaches total. total=false leaves meta.total out and skips counting.`,
    headers: ["IfNoneMatch"],
    responses: {
      200: {
        description: `A page of ${def.name}. ${SPARSE_NOTE}`,
        headers: ["ETag"],
        content: sparseContent(listEnvelope(sparseRecordSchema(def), `${def.singular}SparseList`)),
      },
      304: notModified,
    },
  };
}

/** One record, by id; 304 for a tag still current. */
function getText(def: ResourceDefinition): OperationText {
  const what = def.singular.toLowerCase();
  return {
    summary: `Get one ${what}`,
    description:
      `The ${what} with this id, if it is a live record of your company (else ` +
      `404: another company's ids are unknown here). \`fields\` returns a subset; the ` +
      `ETag serves If-None-Match (304) and If-Match on writes.`,
    headers: ["IfNoneMatch"],
    responses: {
      200: {
        description: `The ${what}. ${SPARSE_NOTE}`,
        headers: ["ETag"],
        content: sparseContent(itemEnvelope(sparseRecordSchema(def), `${def.singular}SparseItem`)),
      },
      304: notModified,
    },
  };
}

/** A create: 201 with Location and ETag, 200 for a dry-run. */
function createText(def: ResourceDefinition): OperationText {
  const what = def.singular.toLowerCase();
  return {
    summary: `Create ${withArticle(what)}`,
    description:
      `Send the ${def.required.join(" and ")} and any other writable field; ` +
      `unknown or read-only fields are a 422. ${DRY_RUN_NOTE}`,
    headers: [...writeHeaders, "Prefer"],
    body: createBodySchema(def),
    responses: {
      201: {
        description:
          "Created; Location names the new record and ETag is the tag a GET of it sends " +
          "(the next If-Match). With `Prefer: return=representation`, `data.record` is " +
          "the record.",
        headers: ["Location", "ETag", "IdempotentReplayed", "PreferenceApplied"],
      },
      200: {
        description: "Dry-run: the create would succeed; nothing was written (`id` is null).",
        headers: ["IdempotentReplayed"],
      },
    },
  };
}

/** A PATCH: a merge of the fields sent. */
function updateText(def: ResourceDefinition): OperationText {
  const what = def.singular.toLowerCase();
  return {
    summary: `Update ${withArticle(what)} (merge)`,
    description:
      `Only the fields sent change; \`null\` clears an optional field. Setting ` +
      `the current value is a no-op (\`updated: false\`). ${DRY_RUN_NOTE}`,
    headers: [...writeHeaders, "IfMatch", "Prefer"],
    body: updateBodySchema(def),
    responses: {
      200: {
        description:
          "The changes and the record after them (or as it would be, in a dry-run). ETag " +
          "(absent in a dry-run) is the tag a GET of the record now sends: the next " +
          "If-Match.",
        headers: ["ETag", "IdempotentReplayed", "PreferenceApplied"],
      },
    },
  };
}

/** A soft delete, with what goes with the record and what stays. */
function deleteText(def: ResourceDefinition): OperationText {
  const what = def.singular.toLowerCase();
  return {
    summary: `Delete ${withArticle(what)} (soft)`,
    description:
      `The record is kept for history but is gone from the API (GET answers 404, ` +
      `lists skip it, references to it are refused). would_delete lists what goes with ` +
      `it, would_keep the live records that reference it and stay. ${DRY_RUN_NOTE}`,
    headers: [...writeHeaders, "IfMatch"],
    responses: {
      200: {
        description: "What was deleted (or would be, in a dry-run).",
        headers: ["IdempotentReplayed"],
      },
    },
  };
}

/** A restore, checked as a create would be. */
function restoreText(def: ResourceDefinition): OperationText {
  const what = def.singular.toLowerCase();
  return {
    summary: `Restore a deleted ${what}`,
    description:
      `Brings a soft-deleted ${what} back as it was: the same id, fields and ` +
      `external_id, with a \`${eventType(def.name, "restored")}\` event. It is checked ` +
      `as a create would be: the plan's quota must have room (402 quota_exceeded), no ` +
      `live record may hold its unique values now (409 unique_violation naming that ` +
      `record), and the records it references must be live (422). A live ${what} is 409 ` +
      `not_deleted. Records deleted together with it (unbilled rentals) come back with ` +
      `it. ${DRY_RUN_NOTE}`,
    headers: writeHeaders,
    responses: {
      200: {
        description:
          "The record as it is back (or would be, in a dry-run) and everything restored " +
          "with it. ETag (absent in a dry-run) is the tag a GET of the record now " +
          "sends.",
        headers: ["ETag", "IdempotentReplayed"],
      },
    },
  };
}

/** A batch of creates, upserts or updates in one transaction; `x-import` maps a spreadsheet's columns. */
function batchText(def: ResourceDefinition): OperationText {
  return {
    summary: `Create, upsert or update up to ${MAX_BATCH_ITEMS} ${def.name}`,
    description:
      `Items are written in order in one transaction, each seeing the ones ` +
      `before it (quotas, unique fields), at the cost of a few statements whatever the ` +
      `batch's size. With \`atomic: false\` (default) each item is written or refused on ` +
      `its own and the answer is 200 with every item's result; with \`atomic: true\` any ` +
      `refused item refuses the whole batch (422 batch_failed, the results in \`data\`) ` +
      `and nothing is written. \`on_conflict: "update"\` upserts each item by its ` +
      `\`external_id\`; \`operation: "update"\` updates the records the items' ids name ` +
      `(PATCH rules per item, an optional \`if_match\` each, \`unchanged\` items written ` +
      `nowhere). \`item_keys\` make each item run at most once across batches of any ` +
      `composition (a re-run of an interrupted import writes nothing twice). A dry-run ` +
      `runs the whole batch in order (duplicates inside it and quota overruns are found) ` +
      `and writes nothing. One Idempotency-Key covers the batch; the batch counts as one ` +
      `request of the rate limit.`,
    headers: writeHeaders,
    body: batchBodySchema(def),
    responses: {
      200: { description: "Every item's result, in order.", headers: ["IdempotentReplayed"] },
    },
    extensions: { "x-import": importColumns(def) },
  };
}

/** A create or update by external id. */
function upsertText(def: ResourceDefinition): OperationText {
  const what = def.singular.toLowerCase();
  return {
    summary: `Create or update ${withArticle(what)} by external id`,
    description:
      `When no live ${what} of your company has this external_id, creates one ` +
      `from the body (201, as a create); else updates it with the fields given (200, as ` +
      `a PATCH: transition and lock rules apply). The external_id matches exactly (case ` +
      `and accents count); one that differs from a live record's only in trailing spaces ` +
      `is that record's value, not a new one: 409 unique_violation. With If-Match, the ` +
      `record must exist and match. ${DRY_RUN_NOTE}`,
    headers: [...writeHeaders, "IfMatch", "Prefer"],
    body: createBodySchema(def),
    responses: {
      201: {
        description:
          "Created; Location names the new record, ETag is its tag. With `Prefer: " +
          "return=representation`, `data.record` is the record.",
        headers: ["Location", "ETag", "IdempotentReplayed", "PreferenceApplied"],
      },
      200: {
        description: "Updated (or, in a dry-run, what a create or update would do).",
        headers: ["ETag", "IdempotentReplayed", "PreferenceApplied"],
      },
    },
  };
}

/** Each operation's text, by operation. */
export const OPERATION_TEXTS: Record<Operation, (def: ResourceDefinition) => OperationText> = {
  list: listText,
  aggregate: aggregateText,
  get: getText,
  create: createText,
  update: updateText,
  delete: deleteText,
  restore: restoreText,
  batch: batchText,
  upsert: upsertText,
};
