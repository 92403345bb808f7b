// The documented shapes of a batch (CONTRACT 10): its body and its per-item results.
import { Type, type TSchema } from "@sinclair/typebox";
import { t } from "elysia";
import { itemEnvelope } from "../http/envelopes.ts";
import { ProblemSchema } from "../http/operation-docs.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { createBodySchema } from "../resources/schemas.ts";
import { MAX_BATCH_ITEMS } from "../writes/batch.ts";

export function batchBodySchema(def: ResourceDefinition): TSchema {
  return Type.Object({
    items: Type.Array(createBodySchema(def), { minItems: 1, maxItems: MAX_BATCH_ITEMS, description: "The records to write, in order. With on_conflict \"update\" each carries its external_id." }),
    atomic: Type.Optional(Type.Boolean({ default: false, description: "true: all or nothing (any refused item → 422 batch_failed). false: each item on its own." })),
    on_conflict: Type.Optional(Type.Union([Type.Literal("error"), Type.Literal("update")], { default: "error", description: "\"update\": an item whose external_id names a live record updates it (an upsert); \"error\": every item is a create." })),
  }, { additionalProperties: false, title: `${def.singular}Batch` });
}

const BatchItemResult = Type.Object({
  index: Type.Integer({ description: "The item's position in `items`, from 0." }),
  status: Type.Integer({ description: "What the item alone would have answered: 201 created, 200 updated or unchanged, else the refusal's status." }),
  id: t.Union([Type.Integer(), t.Null()], { description: "The record's id; null when refused, and for a create in a dry-run." }),
  action: Type.Optional(Type.Union([Type.Literal("created"), Type.Literal("updated"), Type.Literal("unchanged")])),
  error: Type.Optional(ProblemSchema),
}, { additionalProperties: false, title: "BatchItemResult" });

export const BatchResult = itemEnvelope(Type.Object({
  dry_run: Type.Boolean(),
  atomic: Type.Boolean(),
  created: Type.Integer({ description: "Items created (0 when an atomic batch failed)." }),
  updated: Type.Integer({ description: "Items that changed an existing record." }),
  failed: Type.Integer({ description: "Items refused." }),
  results: Type.Array(BatchItemResult),
}, { additionalProperties: false, title: "BatchOutcome" }), "BatchResult");
