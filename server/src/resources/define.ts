// defineResource: a definition written against its drizzle table. Field names are checked by
// the compiler against the table's columns; each field's length and nullability are read from
// its column, and a definition that contradicts its table fails at start-up, not in production.
import type { MySqlColumn, MySqlTable } from "drizzle-orm/mysql-core";
import type {
  DeclaredFieldSpec,
  DeclaredResource,
  Dependent,
  FieldDeclaration,
  Operation,
  ResourceDefinition,
  ResourceTable,
} from "./definition.ts";

type ColumnName<T extends MySqlTable> = Extract<keyof T["_"]["columns"], string>;
type FieldsOf<T extends MySqlTable> = { [K in ColumnName<T>]?: FieldDeclaration };

/** Columns every company table has that no client writes. */
const SYSTEM_COLUMNS = new Set([
  "id",
  "company_id",
  "created_at",
  "updated_at",
  "deleted_at",
  "live",
  "status",
]);

export interface ResourceDeclaration<T extends MySqlTable>
  extends Omit<
    ResourceDefinition,
    | "table"
    | "fields"
    | "readOnly"
    | "required"
    | "search"
    | "filters"
    | "parent"
    | "dependents"
    | "operations"
  > {
  /** Absent: every operation of a collection of records (`RECORD_OPERATIONS`). */
  operations?: readonly Operation[];
  fields: FieldsOf<T>;
  readOnly?: FieldsOf<T>;
  required: readonly ColumnName<T>[];
  search: readonly ColumnName<T>[];
  filters: readonly ColumnName<T>[];
  /** A sub-collection's parent, named by its table. */
  parent?: { table: MySqlTable; column: ColumnName<T>; memberParam: string };
  /** Records of other resources that point at this one, named by their tables. */
  dependents?: readonly DependentDeclaration[];
}

/** A dependent as a definition declares it: named by its table. */
export type DependentDeclaration = Omit<Dependent, "resource"> & { table: MySqlTable };

function complete(
  table: ResourceTable,
  resource: string,
  name: string,
  declared: FieldDeclaration,
): DeclaredFieldSpec {
  const column: MySqlColumn | undefined = table[name];
  if (!column) throw new Error(`${resource}.${name}: the table has no such column`);
  const length = (column as { length?: number }).length;
  return {
    ...declared,
    // A record always shows its custom fields' object, whatever its column holds.
    nullable: declared.type !== "custom" && !column.notNull,
    max: declared.type === "text" || declared.type === "email" ? length : undefined,
  } as DeclaredFieldSpec;
}

function completeAll(
  table: ResourceTable,
  resource: string,
  fields: Record<string, FieldDeclaration | undefined> | undefined,
): Record<string, DeclaredFieldSpec> {
  return Object.fromEntries(
    Object.entries(fields ?? {}).map(([name, declared]) => [
      name,
      complete(table, resource, name, declared!),
    ]),
  );
}

/** Every contradiction between a definition and its table, as sentences. */
export function contradictions(def: DeclaredResource): string[] {
  const found: string[] = [];
  // A caseless unique field's key column is the database's (db/schema.ts, lookupTable).
  const keys = Object.entries(def.fields).flatMap(([name, spec]) =>
    spec.type === "text" && spec.caseless && spec.unique ? [`${name}_key`] : [],
  );
  const declared = new Set([
    ...Object.keys(def.fields),
    ...Object.keys(def.readOnly),
    ...(def.parent ? [def.parent.column] : []),
    ...keys,
  ]);
  for (const key of keys)
    if (!def.table[key]) found.push(`${def.name}: its table has no column ${key}`);
  for (const name of Object.keys(def.table)) {
    if (!SYSTEM_COLUMNS.has(name) && !declared.has(name))
      found.push(`${def.name}: column ${name} is neither a field nor read-only`);
  }
  for (const name of def.required) {
    if (!def.fields[name]) found.push(`${def.name}: required ${name} is not a writable field`);
    else if (def.fields[name].nullable)
      found.push(`${def.name}: required ${name} is a nullable column`);
  }
  for (const [name, spec] of Object.entries(def.fields)) {
    const defaulted = ("default" in spec && spec.default !== undefined) || spec.type === "custom";
    if (!spec.nullable && !defaulted && !def.required.includes(name))
      found.push(`${def.name}: ${name} is NOT NULL but neither required nor defaulted`);
    if ((spec.type === "text" || spec.type === "email") && spec.max === undefined)
      found.push(`${def.name}: ${name} is text but its column has no length`);
  }
  if (def.status && !def.table.status) found.push(`${def.name}: has statuses but no status column`);
  // A quota counts the resource's own live records, so it is the resource's own line of QUOTAS.
  if (def.quota !== undefined && def.quota !== def.name)
    found.push(
      `${def.name}: its quota must be its own line of the plans' quotas, not ${def.quota}`,
    );
  const names = new Set(Object.keys(def.fields));
  const aliased = new Set<string>();
  for (const [name, spec] of Object.entries(def.fields)) {
    for (const alias of spec.aliases ?? []) {
      if (names.has(alias) || aliased.has(alias))
        found.push(
          `${def.name}: the alias ${alias} of ${name} names another field, or another field's alias`,
        );
      aliased.add(alias);
    }
  }
  return found;
}

/** What every table with an `external_id` column offers (docs/writes-and-retries.md): the field and its filter. */
const EXTERNAL_ID: FieldDeclaration = {
  type: "text",
  unique: true,
  identifier: true,
  description:
    "Your own id for this record (from another system), unique among your company's live " +
    "records of this kind; `PUT /v1/{resource}/by-external-id/{external_id}` and batch " +
    "upserts find the record by it. No control characters (NUL, tab, line breaks, " +
    "U+0080-U+009F) and no bidirectional-text controls (U+061C, U+200E, U+200F, " +
    "U+202A-U+202E, U+2066-U+2069).",
};

/**
 * What every lookup declares alike: its `name`, unique ignoring case and searched by `q`, read and
 * written one at a time (a deleted one comes back with restore), under one tag.
 */
export const LOOKUP = {
  tag: "lookups",
  operations: ["list", "get", "create", "update", "delete"],
  required: ["name"],
  fields: {
    name: {
      type: "text",
      unique: true,
      caseless: true,
    },
  },
  search: ["name"],
  filters: [],
} as const;

/** What every table with a `custom_fields` column offers: the company's own fields (docs/custom-fields.md). */
const CUSTOM_FIELDS: FieldDeclaration = {
  type: "custom",
  description:
    "Your company's own fields of this resource (`GET /v1/custom-fields`), one member per " +
    "field, null when empty. A PATCH merges it per key: keys not sent keep their values, null " +
    "clears one.",
};

/** What a collection of records offers unless its definition names fewer (restore, batch and upsert follow). */
const RECORD_OPERATIONS: readonly Operation[] = ["list", "get", "create", "update", "delete"];

/** A definition checked against its table; the registry links its references (registry.ts). */
export function defineResource<T extends MySqlTable>(
  table: T,
  declaration: ResourceDeclaration<T>,
): DeclaredResource {
  const resourceTable = table as unknown as ResourceTable;
  const parent = declaration.parent && {
    ...declaration.parent,
    table: declaration.parent.table as unknown as ResourceTable,
  };
  const external = Object.hasOwn(resourceTable, "external_id");
  const custom = Object.hasOwn(resourceTable, "custom_fields");
  const operations = declaration.operations ?? RECORD_OPERATIONS;
  const def: DeclaredResource = {
    ...declaration,
    table: resourceTable,
    fields: completeAll(resourceTable, declaration.name, {
      ...declaration.fields,
      ...(external ? { external_id: EXTERNAL_ID } : {}),
      ...(custom ? { custom_fields: CUSTOM_FIELDS } : {}),
    }),
    filters: external ? [...declaration.filters, "external_id"] : declaration.filters,
    operations: [
      ...operations,
      // Whatever a list selects, a report counts and totals (docs/api.md, "Reports").
      ...(operations.includes("list") ? (["aggregate"] as const) : []),
      // A soft-deleted record of a collection comes back by its id; a sub-collection's records come
      // back with their parent (docs/concepts.md, "Deletes").
      ...(!declaration.parent && operations.includes("delete") ? (["restore"] as const) : []),
      ...(external && !declaration.parent && !declaration.lookup && operations.includes("create")
        ? (["batch", "upsert"] as const)
        : []),
    ],
    readOnly: completeAll(resourceTable, declaration.name, declaration.readOnly),
    parent,
    dependents: (declaration.dependents ?? []).map((dependent) => ({
      ...dependent,
      table: dependent.table as unknown as ResourceTable,
    })),
  };
  const problems = contradictions(def);
  if (problems.length > 0)
    throw new Error(`resource definition contradicts its table:\n${problems.join("\n")}`);
  return def;
}
