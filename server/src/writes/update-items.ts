// The items of a batch update by id (docs/writes-and-retries.md, "Updates by id"): each names its
// record by `id`, carries the fields to change (a PATCH body) and optionally `if_match`, the record's
// ETag or the `updated_at` the caller last saw, which refuses the item when the record changed since.
import { validationFailed, changedSince } from "../refusals/catalogue.ts";
import type { FieldError } from "../refusals/refusal.ts";
import type { ResourceDefinition, StoredRecord } from "../resources/definition.ts";
import { validateBody } from "../resources/validation.ts";
import type { Shown } from "../resources/shown.ts";
import { checkIfMatch } from "./preconditions.ts";

export interface UpdateItem {
  id: number;
  ifMatch?: string;
  /** The fields to change: a PATCH body. */
  fields: Record<string, unknown>;
}

/** RFC 3339, as `updated_at` is written (a space for the `T`, as spreadsheets write it, is accepted). */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

const isEtag = (value: string): boolean => /^(W\/)?"/.test(value) || value === "*";

/** An item's id and if_match, or its refusal with every problem of the item at once (its fields' too). */
export function updateItem(def: ResourceDefinition, item: unknown): UpdateItem {
  if (typeof item !== "object" || item === null || Array.isArray(item)) {
    throw validationFailed([
      {
        field: "body",
        code: "invalid_type",
        message: 'Each item must be an object: {"id": 12, "name": "…"}.',
      },
    ]);
  }
  const { id, if_match: ifMatch, ...fields } = item as Record<string, unknown>;
  const errors: FieldError[] = [];
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 1) {
    errors.push({
      field: "id",
      code: id === undefined ? "required" : "invalid_type",
      message: "id must be the id of the record to update, a whole number from 1.",
    });
  }
  if (
    ifMatch !== undefined &&
    (typeof ifMatch !== "string" || !(isEtag(ifMatch) || TIMESTAMP.test(ifMatch)))
  ) {
    errors.push({
      field: "if_match",
      code: "invalid_value",
      message:
        'if_match must be the record\'s ETag ("…") or the updated_at you last saw, e.g. 2026-01-31T09:30:00.000Z.',
    });
  }
  if (errors.length > 0)
    throw validationFailed([...errors, ...validateBody(def, fields, true).errors]);
  return {
    id: id as number,
    ...(ifMatch === undefined ? {} : { ifMatch: ifMatch as string }),
    fields,
  };
}

/**
 * The item's if_match against the record as the batch found it: an ETag must be the one a GET sends
 * now; a timestamp must be its updated_at, at the precision sent (a spreadsheet that drops the
 * milliseconds still names the second).
 */
export function checkItemIfMatch(
  ifMatch: string | undefined,
  record: StoredRecord,
  shown?: Shown,
): void {
  if (ifMatch === undefined) return;
  if (isEtag(ifMatch)) {
    checkIfMatch(ifMatch, record, shown);
    return;
  }
  const sent = Date.parse(ifMatch.replace(" ", "T"));
  const stored = Date.parse(String(record.updated_at));
  const precise = /\.\d/.test(ifMatch);
  const same = precise ? sent === stored : Math.floor(stored / 1000) * 1000 === sent;
  if (!same) throw changedSince(ifMatch, String(record.updated_at));
}

/** A restore item's id (`{"id": 12}`, nothing else), or its refusal. */
export function restoreItem(item: unknown): number {
  const { id, ...rest } =
    typeof item === "object" && item !== null && !Array.isArray(item)
      ? (item as Record<string, unknown>)
      : { id: undefined };
  const errors: FieldError[] = Object.keys(rest).map((field) => ({
    field,
    code: "unknown_field",
    message: `A restore item has only the id of the record to bring back; ${field} is not one of its fields.`,
  }));
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 1)
    errors.push({
      field: "id",
      code: id === undefined ? "required" : "invalid_type",
      message:
        'id must be the id of the deleted record to restore, a whole number from 1: {"id": 12}.',
    });
  if (errors.length > 0) throw validationFailed(errors);
  return id as number;
}
