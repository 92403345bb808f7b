// The field lists every layer reads off a definition: what a client may write (status included),
// what a record shows, what `fields=` may pick, and what a create fills in by default. A definition
// never changes, so each list is derived once per definition (a batch asks for them per item).
import type { FieldSpec, ResourceDefinition } from "./definition.ts";

/** `derive`, computed once per definition. */
function perDefinition<T>(derive: (def: ResourceDefinition) => T): (def: ResourceDefinition) => T {
  const derived = new WeakMap<ResourceDefinition, T>();
  return (def) => {
    let value = derived.get(def);
    if (value === undefined && !derived.has(def)) {
      value = derive(def);
      derived.set(def, value);
    }
    return value as T;
  };
}

/** The status field of a definition with statuses: an enum that defaults to the first initial status. */
export function statusSpec(def: ResourceDefinition): FieldSpec | undefined {
  return def.status
    ? {
        type: "enum",
        values: def.status.values,
        default: def.status.initial[0],
        nullable: false,
        max: undefined,
      }
    : undefined;
}

/** Every writable field, status included, in declaration order. */
export const writableFields = perDefinition((def): readonly [string, FieldSpec][] => {
  const status = statusSpec(def);
  return [
    ...Object.entries(def.fields),
    ...(status ? [["status", status] as [string, FieldSpec]] : []),
  ];
});

/** Fields a record carries besides id and its timestamps: read-only ones first, then writable. */
export const recordFields = perDefinition((def): readonly [string, FieldSpec][] => [
  ...Object.entries(def.readOnly),
  ...writableFields(def),
]);

/**
 * The fields a definition marks `sensitive` (pay, tax data): read and written only with its
 * resource's sensitive scope (visibility.ts).
 */
export const sensitiveFieldNames = perDefinition((def): readonly string[] =>
  recordFields(def)
    .filter(([, spec]) => spec.sensitive === true)
    .map(([name]) => name),
);

/** True when the table keeps created_at and updated_at. */
export const hasTimestamps = (def: ResourceDefinition): boolean => "created_at" in def.table;

/** Members a record may show and `fields=` may pick, in output order. */
export const readableFieldNames = perDefinition((def): readonly string[] => [
  "id",
  ...recordFields(def).map(([name]) => name),
  ...(hasTimestamps(def) ? ["created_at", "updated_at"] : []),
]);

/** Members a client never writes: the server sets them. */
export const readOnlyNames = perDefinition((def): readonly string[] => [
  "id",
  ...Object.keys(def.readOnly),
  ...(def.parent ? [def.parent.column] : []),
  "created_at",
  "updated_at",
  "deleted_at",
]);

export const hasDefault = (spec: FieldSpec): boolean =>
  "default" in spec && spec.default !== undefined;

/** Default values of fields a create did not send. */
export const createDefaults = perDefinition((def): Readonly<Record<string, unknown>> => {
  const defaults: Record<string, unknown> = {};
  for (const [name, spec] of writableFields(def)) {
    if (hasDefault(spec)) defaults[name] = (spec as { default: unknown }).default;
  }
  return defaults;
});

/** The unique text fields of a definition (code, serial_number, external_id). */
export const uniqueFields = perDefinition((def): readonly string[] =>
  Object.entries(def.fields)
    .filter(([, spec]) => spec.type === "text" && spec.unique)
    .map(([name]) => name),
);

/** Every reference a record carries, writable or read-only (a rental's equipment). */
export const referenceFields = perDefinition(
  (def): readonly [string, FieldSpec & { type: "ref" }][] =>
    [...writableFields(def), ...Object.entries(def.readOnly)].filter(
      (entry): entry is [string, FieldSpec & { type: "ref" }] => entry[1].type === "ref",
    ),
);

/** Each date field that may not be before another: [field, the field it follows]. */
export const dateOrderRules = perDefinition((def): readonly [string, string][] =>
  Object.entries(def.fields).flatMap(([name, spec]): [string, string][] =>
    spec.type === "date" && spec.notBefore ? [[name, spec.notBefore]] : [],
  ),
);

/** The writable fields by name, and the names a client may not write. */
export const fieldIndex = perDefinition((def) => ({
  writable: new Map(writableFields(def)),
  readOnly: new Set(readOnlyNames(def)),
}));

/**
 * Fields a list sorts by: every scalar a record shows except free text over 200 characters
 * (addresses), which nobody orders a list by and no index could serve.
 */
export const sortableFieldNames = perDefinition((def): readonly string[] => {
  const specs = new Map(recordFields(def));
  return readableFieldNames(def).filter((name) => {
    const spec = specs.get(name);
    const freeText = spec?.type === "text" && !spec.unique && !spec.identifier;
    // Custom fields sort one at a time, as `cf.<key>` (resources/custom-lists.ts).
    return spec?.type !== "custom" && !(freeText && (spec.max ?? Infinity) > 200);
  });
});

/** How an equality filter reads its value: any of some values, an id, a switch, exact text, currencies. */
export type FilterKind =
  | { kind: "enum"; values: readonly string[] }
  | { kind: "id" }
  | { kind: "boolean" }
  | { kind: "text" }
  | { kind: "currency" };

/**
 * The equality filters of a list: every enum (status included), reference, boolean, email and
 * unique field a client writes, and the text fields a definition names in `filters` (`tax_id`).
 */
export const equalityFilters = perDefinition((def): readonly [string, FilterKind][] =>
  writableFields(def).flatMap(([name, spec]): [string, FilterKind][] => {
    if (spec.type === "enum") return [[name, { kind: "enum", values: spec.values }]];
    if (spec.type === "ref") return [[name, { kind: "id" }]];
    if (spec.type === "boolean") return [[name, { kind: "boolean" }]];
    if (spec.type === "currency") return [[name, { kind: "currency" }]];
    if (
      spec.type === "email" ||
      (spec.type === "text" && (spec.unique || def.filters.includes(name)))
    )
      return [[name, { kind: "text" }]];
    return [];
  }),
);

/** The fields a list takes ranges on (`hired_on[gte]=…`): dates, money and the timestamps. */
export const rangeFields = perDefinition(
  (def): readonly [string, "date" | "money" | "timestamp"][] => [
    ...recordFields(def).flatMap(([name, spec]): [string, "date" | "money"][] =>
      spec.type === "date" || spec.type === "money" ? [[name, spec.type]] : [],
    ),
    ...(hasTimestamps(def)
      ? [
          ["created_at", "timestamp"] as [string, "timestamp"],
          ["updated_at", "timestamp"] as [string, "timestamp"],
        ]
      : []),
  ],
);

/** A reference a record can embed: `client` for `client_id`, with the definition it points at. */
export interface Expandable {
  name: string;
  field: string;
  target: ResourceDefinition;
}

/** The references of a definition's records, by the name `expand` gives them (the field without `_id`). */
export function expandables(def: ResourceDefinition): Expandable[] {
  return recordFields(def).flatMap(([field, spec]) =>
    spec.type === "ref" ? [{ name: field.replace(/_id$/, ""), field, target: spec.target }] : [],
  );
}

/** Every path `expand` accepts: each reference, and each reference of a reference (`project.client`). */
export function expandPaths(def: ResourceDefinition): string[] {
  return expandables(def).flatMap((reference) => [
    reference.name,
    ...expandables(reference.target).map((nested) => `${reference.name}.${nested.name}`),
  ]);
}
