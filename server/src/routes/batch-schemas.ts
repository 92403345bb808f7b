// The documented shapes of a batch (docs/writes-and-retries.md): its body and its per-item results.
import { Type, type TObject, type TSchema } from "@sinclair/typebox";
import { t } from "elysia";
import { itemEnvelope } from "../http/envelopes.ts";
import { ProblemSchema } from "../refusals/problem-schema.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { createExample } from "../resources/examples.ts";
import { createBodySchema, updateBodySchema } from "../resources/schemas.ts";
import { MAX_BATCH_ITEMS } from "../writes/batch.ts";

/** An item of `operation: "update"`: the record's id, the fields to change, and optionally if_match. */
function batchUpdateItemSchema(def: ResourceDefinition): TSchema {
  const fields = updateBodySchema(def) as TObject;
  return Type.Object(
    {
      id: Type.Integer({ minimum: 1, description: "The id of the record to update." }),
      if_match: Type.Optional(
        Type.String({
          description:
            "Refuses the item (412 precondition_failed) when the record changed since you read " +
            "it: its ETag, or the `updated_at` you saw (compared at the precision sent: " +
            "with milliseconds, or to the second).",
          examples: ['"kPq3v3d8m3Ymz0nJ3fQm5m5e2Xk"', "2026-01-31T09:30:00.000Z"],
        }),
      ),
      ...fields.properties,
    },
    {
      additionalProperties: false,
      title: `${def.singular}BatchUpdate`,
      description:
        `A change to one ${def.singular.toLowerCase()}, by id: the fields sent ` +
        `change (a PATCH, merge), the others stay.`,
    },
  );
}

export function batchBodySchema(def: ResourceDefinition): TSchema {
  return Type.Object(
    {
      operation: Type.Optional(
        Type.Union([Type.Literal("create"), Type.Literal("update"), Type.Literal("restore")], {
          default: "create",
          description:
            '"create": every item is a new record (or, with on_conflict "update", an upsert by ' +
            'external_id). "update": every item carries the `id` of a live record and the ' +
            "fields to change, under the rules of a PATCH (transitions, locks, references, " +
            "unique fields); an unknown id is that item's 404 not_found, `if_match` that " +
            "no longer matches its 412 precondition_failed, and an item that changes " +
            'nothing is `unchanged` (no write, no event). "restore": every item is `{"id": ' +
            "…}` of a deleted record, brought back as it was under the checks of a create " +
            "(quota, unique values, references; a live record is that item's 409 " +
            "not_deleted), with what was deleted together with it.",
        }),
      ),
      items: Type.Array(Type.Union([createBodySchema(def), batchUpdateItemSchema(def)]), {
        minItems: 1,
        maxItems: MAX_BATCH_ITEMS,
        description:
          'The records to write, in order: creates (with on_conflict "update" each carries its ' +
          'external_id), with operation "update" each record\'s id and the fields to ' +
          'change, with operation "restore" only the id.',
      }),
      atomic: Type.Optional(
        Type.Boolean({
          default: false,
          description:
            "true: all or nothing (any refused item → 422 batch_failed). false: each item on its own.",
        }),
      ),
      on_conflict: Type.Optional(
        Type.Union([Type.Literal("error"), Type.Literal("update")], {
          default: "error",
          description:
            'Creates only. "update": an item whose external_id names a live record updates it ' +
            '(an upsert); "error": every item is a create.',
        }),
      ),
      item_keys: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: 255, pattern: "^[\\x20-\\x7e]+$" }), {
          minItems: 1,
          maxItems: MAX_BATCH_ITEMS,
          uniqueItems: true,
          description:
            "One key per item, in the same order, each unique in the batch: an item runs at " +
            "most once per key across batches of any composition. An item whose key was " +
            "bound (within 24 h) to the same item is not written again: its stored result " +
            "comes back with `replayed: true`; a different item under a bound key is that " +
            "item's 409 `idempotency_key_reuse`. Only items written (created, updated or " +
            "unchanged) bind their key; refusals and dry-runs bind nothing.",
        }),
      ),
      preceding: Type.Optional(
        Type.Object(
          {
            created: Type.Optional(
              Type.Integer({
                minimum: 0,
                description:
                  "Records the earlier batches would create (they count against the plan's quota).",
              }),
            ),
            unique: Type.Optional(
              Type.Record(Type.String(), Type.Array(Type.String(), { maxItems: MAX_BATCH_ITEMS }), {
                description:
                  "Per unique field (`code`, `serial_number`, `external_id`, …), the values the " +
                  "earlier batches would take; only the values this batch uses matter.",
              }),
            ),
          },
          {
            additionalProperties: false,
            description:
              "Dry-run only: what earlier dry-run batches of the same file would have written, " +
              "so a file previewed in several batches is previewed exactly (a value an " +
              "earlier batch takes is a 409 here; its creates count against the quota; an " +
              "upsert of an external id an earlier batch creates is an update). `erp " +
              "import --dry-run` sends it.",
          },
        ),
      ),
    },
    {
      additionalProperties: false,
      title: `${def.singular}Batch`,
      examples: [{ items: [createExample(def)], atomic: false, on_conflict: "error" }],
    },
  );
}

const BatchItemResult = Type.Object(
  {
    index: Type.Integer({ description: "The item's position in `items`, from 0." }),
    status: Type.Integer({
      description:
        "What the item alone would have answered: 201 created, 200 updated, unchanged or " +
        "restored, else the refusal's status.",
    }),
    id: t.Union([Type.Integer(), t.Null()], {
      description: "The record's id; null when refused, and for a create in a dry-run.",
    }),
    action: Type.Optional(
      Type.Union([
        Type.Literal("created"),
        Type.Literal("updated"),
        Type.Literal("unchanged"),
        Type.Literal("restored"),
      ]),
    ),
    replayed: Type.Optional(
      Type.Literal(true, {
        description:
          "The item's key was already bound to this item: the stored result, nothing was written again.",
      }),
    ),
    error: Type.Optional(ProblemSchema),
  },
  { additionalProperties: false, title: "BatchItemResult" },
);

export const BatchResult = itemEnvelope(
  Type.Object(
    {
      dry_run: Type.Boolean(),
      atomic: Type.Boolean(),
      created: Type.Integer({
        description:
          "Items created by this request (0 when an atomic batch failed; replayed items are not counted).",
      }),
      updated: Type.Integer({
        description: "Items that changed an existing record in this request.",
      }),
      restored: Type.Integer({
        description: 'Deleted records brought back by this request (`operation: "restore"`).',
      }),
      failed: Type.Integer({ description: "Items refused." }),
      results: Type.Array(BatchItemResult),
    },
    { additionalProperties: false, title: "BatchOutcome" },
  ),
  "BatchResult",
);
