// The documentation of the operations of a definition: names, parameters and the refusals its
// rules can produce, derived from the definition like the routes themselves.
import type { DocumentDecoration } from "elysia";
import type { ParamParser } from "../http/query.ts";
import { operationDetail } from "../http/operation-docs.ts";
import type { RefusalCode } from "../refusals/catalogue.ts";
import type { Operation, ResourceDefinition } from "../resources/definition.ts";
import { uniqueFields } from "../resources/fields.ts";
import { pascal } from "../resources/naming.ts";
import { operationScope } from "../resources/scopes.ts";
import { OPERATION_TEXTS } from "./crud-texts.ts";
import { BODY_REFUSALS, WRITE_REFUSALS } from "./route-context.ts";

function operationIds(def: ResourceDefinition): Record<Operation, string> {
  const owner = def.parent ? pascal(def.parent.resource.name) : "";
  return {
    list: `list${owner}${pascal(def.name)}`,
    aggregate: `aggregate${owner}${pascal(def.name)}`,
    get: `get${owner}${def.singular}`,
    create: `create${owner}${def.singular}`,
    update: `update${owner}${def.singular}`,
    delete: `delete${owner}${def.singular}`,
    restore: `restore${owner}${def.singular}`,
    batch: `batch${owner}${pascal(def.name)}`,
    upsert: `upsert${owner}${def.singular}ByExternalId`,
  };
}

/** The refusals an operation of this definition can answer with, beyond admission. */
function operationRefusals(def: ResourceDefinition, operation: Operation): RefusalCode[] {
  const when = (condition: boolean, ...codes: RefusalCode[]): RefusalCode[] =>
    condition ? codes : [];
  const parentMissing = when(def.parent !== undefined, "not_found");
  const unique = when(uniqueFields(def).length > 0, "unique_violation");
  switch (operation) {
    case "list":
      return ["invalid_query", ...parentMissing];
    case "aggregate":
      return ["invalid_query", "too_many_groups", ...parentMissing];
    case "get":
      return ["invalid_query", "not_found"];
    case "create":
      return [
        ...WRITE_REFUSALS,
        ...BODY_REFUSALS,
        ...parentMissing,
        ...when(def.quota !== undefined, "quota_exceeded"),
        ...when(
          def.status !== undefined && def.status.initial.length < def.status.values.length,
          "invalid_transition",
        ),
        ...unique,
      ];
    case "update":
      return [
        ...WRITE_REFUSALS,
        ...BODY_REFUSALS,
        "not_found",
        ...when(def.status?.transitions !== undefined, "invalid_transition"),
        ...(def.conflicts ?? []),
        ...unique,
        "precondition_failed",
      ];
    case "delete":
      return [
        ...WRITE_REFUSALS,
        "not_found",
        ...when(
          def.dependents.some((dependent) => dependent.effect === "block"),
          "delete_blocked",
        ),
        "precondition_failed",
      ];
    case "restore":
      return [
        ...WRITE_REFUSALS,
        "not_found",
        "not_deleted",
        "validation_failed",
        ...when(def.quota !== undefined, "quota_exceeded"),
        ...unique,
      ];
    // Refused items are reported inside the 200 answer; only an atomic batch refuses as a whole.
    case "batch":
      return [...WRITE_REFUSALS, ...BODY_REFUSALS, "batch_failed"];
    case "upsert":
      return [...operationRefusals(def, "create"), ...operationRefusals(def, "update")];
  }
}

/**
/** The `detail` of an operation of a definition: what every operation shares, then its own text. */
export function crudDetail(
  def: ResourceDefinition,
  operation: Operation,
  query: Record<string, ParamParser<unknown>>,
): DocumentDecoration {
  return operationDetail({
    operationId: operationIds(def)[operation],
    tags: [def.tag ?? def.parent?.resource.name ?? def.name],
    query,
    refusals: operationRefusals(def, operation),
    scope: operationScope(def, operation),
    ...OPERATION_TEXTS[operation](def),
  });
}
