// How a file's columns map to a resource's fields, settled from the header before anything is sent:
// a header cell matches a field after trimming, case folding and turning spaces and hyphens into
// `_` (`Phone Number` → `phone_number`), directly or through an alias the resource declares
// (`phone_number` → `phone`), or through `--map "Phone Number=phone"`. The company's custom fields
// match by their label or their key, folded the same way (a built-in field's name comes first).
// Reference columns name the record (`trade` instead of `trade_id`). The read-only columns of an
// export and a rejects file's `error` column are skipped with one warning each; any other column
// stops the import (exit 2), named with the closest field, unless it is skipped on purpose.
import type { CollectionSpec } from "@erp/sdk";
import {
  type CustomFieldDefinition,
  type CustomFieldType,
  customMember,
} from "../custom-fields.ts";
import { UsageError } from "../usage-error.ts";
import { editDistance, isClose } from "./closest.ts";

/** Columns an export writes that no create accepts. */
const READ_ONLY = new Set(["id", "created_at", "updated_at", "deleted_at"]);
/** The column a rejects file adds; a fixed rejects file re-imports as it is. */
const ERROR_COLUMN = "error";

export type Column =
  | { kind: "field"; field: string }
  /** Names the referenced record: `field` is the `*_id` field it stands for. */
  | { kind: "reference"; field: string }
  /** A custom field: `field` is `custom_fields.<key>`. */
  | { kind: "custom"; field: string; type: CustomFieldType }
  | { kind: "skipped" };

export interface ColumnOptions {
  /** `Header=field` pairs from --map. */
  map: readonly string[];
  /** Headers to leave out (--skip-column). */
  skip: readonly string[];
  /** Leave out every column that matches nothing (--skip-unknown-columns). */
  skipUnknown: boolean;
  /** Read-only columns the import reads itself (an update's id and updated_at): no warning. */
  read?: readonly string[];
  /** The company's custom fields of the resource. */
  customFields?: readonly CustomFieldDefinition[];
}

/** `" Phone-Number "` → `phone_number`: trimmed, case-folded, spaces and hyphens as `_`, other punctuation dropped. */
export function normalizeHeader(header: string): string {
  return header
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_")
    .replace(/[^\p{L}\p{N}_]/gu, "")
    .replace(/_+/g, "_")
    .replace(/^_|_$/g, "");
}

/** What the file's columns become, and the warnings to say once. */
export interface ColumnPlan {
  columns: Column[];
  warnings: string[];
}

export function planColumns(
  spec: CollectionSpec,
  headers: readonly string[],
  options: ColumnOptions,
): ColumnPlan {
  const fields = new Set(Object.keys(spec.fields.create));
  const references = new Map(
    Object.entries(spec.import.references).map(([field, reference]) => [reference.column, field]),
  );
  const names = new Map<string, Column>();
  for (const field of fields) names.set(field, { kind: "field", field });
  for (const [alias, field] of Object.entries(spec.import.aliases))
    names.set(alias, { kind: "field", field });
  for (const [column, field] of references) names.set(column, { kind: "reference", field });
  const custom: string[] = [];
  for (const { key, label, type } of options.customFields ?? []) {
    const column: Column = { kind: "custom", field: customMember(key), type };
    for (const name of [normalizeHeader(label), key])
      if (name !== "" && !names.has(name)) names.set(name, column);
    custom.push(key);
  }
  const known = [...fields, ...references.keys(), ...custom];

  const mapped = new Map<string, Column>();
  for (const pair of options.map) {
    const at = pair.lastIndexOf("=");
    const target = at > 0 ? names.get(normalizeHeader(pair.slice(at + 1))) : undefined;
    if (!target)
      throw new UsageError(
        `--map "${pair}": expected "Header=field" with one of the fields ${known.join(", ")}`,
      );
    mapped.set(normalizeHeader(pair.slice(0, at)), target);
  }
  const skipped = new Set(options.skip.map(normalizeHeader));

  const warnings: string[] = [];
  const unknown: string[] = [];
  const taken = new Map<string, string>();
  const readOnly: string[] = [];
  const columns = headers.map((header): Column => {
    const name = normalizeHeader(header);
    if (skipped.has(name)) return { kind: "skipped" };
    const column = mapped.get(name) ?? names.get(name);
    if (column && column.kind !== "skipped") {
      const earlier = taken.get(column.field);
      if (earlier !== undefined)
        throw new UsageError(
          `the columns "${earlier}" and "${header}" both give ${column.field}; drop one, or --skip-column one of them`,
        );
      taken.set(column.field, header);
      return column;
    }
    if (READ_ONLY.has(name)) {
      if (!options.read?.includes(name)) readOnly.push(header.trim());
      return { kind: "skipped" };
    }
    if (name === ERROR_COLUMN) {
      warnings.push(
        `ignoring the "${header.trim()}" column (a rejects file's reasons; fix the rows and import them as they are)`,
      );
      return { kind: "skipped" };
    }
    if (options.skipUnknown) {
      warnings.push(`skipping the column "${header.trim()}": it matches no field`);
      return { kind: "skipped" };
    }
    unknown.push(header);
    return { kind: "skipped" };
  });
  if (readOnly.length > 0)
    warnings.push(
      `skipping read-only column${readOnly.length > 1 ? "s" : ""} ${readOnly.join(", ")} (the API sets them)`,
    );
  if (unknown.length > 0) {
    const candidates = [...names.keys()];
    const lines = unknown.map((header) => {
      const name = normalizeHeader(header);
      const closest = candidates.reduce(
        (best, candidate) =>
          editDistance(name, candidate) < editDistance(name, best) ? candidate : best,
        candidates[0]!,
      );
      if (!isClose(name, closest)) {
        return (
          `  "${header}": no field of ${spec.command} is called that or anything close ` +
          `(the fields: ${known.join(", ")})`
        );
      }
      const target = names.get(closest)!;
      const meant =
        target.kind !== "skipped" && target.kind !== "reference" && target.field !== closest
          ? `${closest} (${target.field})`
          : closest;
      return `  "${header}": no field of ${spec.command} is called that; the closest is ${meant}`;
    });
    throw new UsageError(
      `the file's header has ${unknown.length} column${unknown.length > 1 ? "s" : ""} that ` +
        `match${unknown.length > 1 ? "" : "es"} no field, so nothing was ` +
        `sent:\n${lines.join("\n")}\n` +
        `Rename the column, map it (--map "Header=field"), or leave it out (--skip-column ` +
        `"Header", or --skip-unknown-columns for all).`,
    );
  }
  return { columns, warnings };
}
