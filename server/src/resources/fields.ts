// The field lists every layer reads off a definition: what a client may write (status included),
// what a record shows, what `fields=` may pick, and what a create fills in by default.
import type { FieldSpec, ResourceDefinition } from "./definition.ts";

/** The status field of a definition with statuses: an enum that defaults to the first initial status. */
export function statusSpec(def: ResourceDefinition): FieldSpec | undefined {
  return def.status ? { type: "enum", values: def.status.values, default: def.status.initial[0], nullable: false, max: undefined } : undefined;
}

/** Every writable field, status included, in declaration order. */
export function writableFields(def: ResourceDefinition): [string, FieldSpec][] {
  const status = statusSpec(def);
  return [...Object.entries(def.fields), ...(status ? [["status", status] as [string, FieldSpec]] : [])];
}

/** Fields a record carries besides id and its timestamps: read-only ones first, then writable. */
export function recordFields(def: ResourceDefinition): [string, FieldSpec][] {
  return [...Object.entries(def.readOnly), ...writableFields(def)];
}

/** True when the table keeps created_at and updated_at (lookups do not). */
export const hasTimestamps = (def: ResourceDefinition): boolean => "created_at" in def.table;

/** Members a record may show and `fields=` may pick, in output order. */
export function readableFieldNames(def: ResourceDefinition): string[] {
  return ["id", ...recordFields(def).map(([name]) => name), ...(hasTimestamps(def) ? ["created_at", "updated_at"] : [])];
}

/** Members a client never writes: the server sets them. */
export function readOnlyNames(def: ResourceDefinition): string[] {
  return ["id", ...Object.keys(def.readOnly), ...(def.parent ? [def.parent.column] : []), "created_at", "updated_at", "deleted_at"];
}

export const hasDefault = (spec: FieldSpec): boolean => "default" in spec && spec.default !== undefined;

/** Default values of fields a create did not send. */
export function createDefaults(def: ResourceDefinition): Record<string, unknown> {
  const defaults: Record<string, unknown> = {};
  for (const [name, spec] of writableFields(def)) {
    if (hasDefault(spec)) defaults[name] = (spec as { default: unknown }).default;
  }
  return defaults;
}

/** The unique text fields of a definition (code, serial_number). */
export const uniqueFields = (def: ResourceDefinition): string[] =>
  Object.entries(def.fields).filter(([, spec]) => spec.type === "text" && spec.unique).map(([name]) => name);
