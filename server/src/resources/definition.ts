// What a resource is: its table, writable fields, states, filters and delete rules. Routes,
// validation, OpenAPI schemas and the SDK types are all derived from these definitions.
import type { MySqlColumn, MySqlTable } from "drizzle-orm/mysql-core";
import type { Addon } from "../auth/addons.ts";
import type { QuotaName } from "../auth/plans.ts";
import type { RefusalCode } from "../refusals/catalogue.ts";
import type { Refusal } from "../refusals/refusal.ts";

// Drizzle's column types are too precise to write generic CRUD against; the definitions
// stay typed by column name and the generic code reads columns through this shape.
export type ResourceTable = MySqlTable & Record<string, MySqlColumn>;

/**
 * A field as a definition declares it; its length and nullability come from its column. `aliases`
 * are other names a spreadsheet's column header may give it (an import matches headers to fields
 * after trimming, case folding and turning spaces and hyphens into `_`).
 */
export type FieldDeclaration = FieldOf<MySqlTable>;

/** A field whose reference names its target by `Target`: a table when declared, a definition once linked. */
type FieldOf<Target> = {
  aliases?: readonly string[];
  /**
   * Pay or tax data: read and written only with the resource's sensitive scope, hidden from every
   * other token wherever records leave (visibility.ts, docs/tokens.md).
   */
  sensitive?: boolean;
} /** `identifier`: an id from another system, 1 character or more, no control characters (identifiers.ts). */ & (
  | {
      type: "text";
      unique?: boolean;
      identifier?: boolean;
      /**
       * Stored without surrounding white space and, when unique, compared ignoring case (a
       * lookup's name, caseless.ts): the table's `<field>_key` column holds it in lower case
       * under the unique key.
       */
      caseless?: boolean;
      description?: string;
    }
  | { type: "email"; description?: string }
  | { type: "money"; default?: string; description?: string }
  | { type: "date"; notBefore?: string; description?: string }
  | { type: "enum"; values: readonly string[]; default?: string; description?: string }
  | { type: "currency"; default: string; description?: string }
  | {
      type: "ref";
      target: Target;
      requiredStatus?: string;
      refusedStatus?: string;
      description?: string;
    }
  | { type: "boolean"; default?: boolean; description?: string }
  /** The company's own fields (resources/custom-fields.ts): an object, checked against its definitions. */
  | { type: "custom"; description?: string }
);

type Completed<D> = D extends unknown ? D & { nullable: boolean; max: number | undefined } : never;

/** A declared field completed from its column: `max` (characters) for text, `nullable`; its reference still a table. */
export type DeclaredFieldSpec = Completed<FieldDeclaration>;

/** A field of a registered definition: a reference's `target` is the referenced resource's definition. */
export type FieldSpec = Completed<FieldOf<ResourceDefinition>>;

export interface StateMachine {
  values: readonly string[];
  /** Statuses a create may start in; the first is the default. */
  initial: readonly string[];
  /** Allowed next statuses; absent means any status may follow any other. */
  transitions?: Readonly<Record<string, readonly string[]>>;
}

export type StoredRecord = Record<string, unknown> & { id: number };

/** Records of another resource that point at the record being deleted. */
export interface Dependent {
  resource: ResourceDefinition;
  column: string;
  /** keep: it stays and is listed in would_keep; block: it forbids the delete; cascade: deleted with it. */
  effect: "keep" | "block" | "cascade";
  /** Narrows which referencing rows take this effect (e.g. billed rentals). */
  where?: Record<string, unknown>;
  reason?: string;
}

/** A sub-collection's parent: its resource, the column naming it, the member's path parameter. */
export interface ParentScope {
  resource: ResourceDefinition;
  column: string;
  /** The path parameter of one member, e.g. `rental_id` in /v1/equipment/{id}/rentals/{rental_id}. */
  memberParam: string;
}

/**
 * `batch` and `upsert` come with `create` on every top-level resource with an `external_id` column;
 * `aggregate` (a report: counts and totals in groups) with `list`.
 */
export type Operation =
  | "list"
  | "aggregate"
  | "get"
  | "create"
  | "update"
  | "delete"
  | "restore"
  | "batch"
  | "upsert";

export interface ResourceDefinition {
  /** The path segment, e.g. `projects`, `equipment-categories`. */
  name: string;
  singular: string;
  description: string;
  /** The OpenAPI tag; by default the resource's own name (its parent's for a sub-collection). */
  tag?: string;
  table: ResourceTable;
  addon: Addon;
  operations: readonly Operation[];
  required: readonly string[];
  fields: Readonly<Record<string, FieldSpec>>;
  /** Fields shown on records but never written by a client (e.g. a rental's equipment_id). */
  readOnly: Readonly<Record<string, FieldSpec>>;
  status?: StateMachine;
  search: readonly string[];
  filters: readonly string[];
  /** The resource's own line of the plans' quotas (auth/plans.ts): its name, when it is limited. */
  quota?: QuotaName;
  parent?: ParentScope;
  /**
   * A lookup (trades, equipment categories): a company's list of names its records point at, read
   * with any read scope and written with `lookups:write`, one at a time (no batches, upserts or
   * imports); `seed` names the ones every new company starts with.
   */
  lookup?: { seed: readonly string[] };
  /** Rules beyond types and transitions, checked against the stored record on update. */
  updateRule?: (stored: StoredRecord, patch: Record<string, unknown>) => Refusal | undefined;
  /** A stored record that refuses any change (e.g. a billed rental). */
  frozen?: (stored: StoredRecord) => Refusal | undefined;
  /** The codes `updateRule` and `frozen` may refuse with, for the OpenAPI document. */
  conflicts?: readonly RefusalCode[];
  dependents: readonly Dependent[];
}

/**
 * A definition as defineResource makes it: its references (fields, dependents, parent) still name
 * tables. The registry links every one to its definition (registry.ts); nothing else reads these.
 */
export interface DeclaredResource
  extends Omit<ResourceDefinition, "fields" | "readOnly" | "dependents" | "parent"> {
  fields: Readonly<Record<string, DeclaredFieldSpec>>;
  readOnly: Readonly<Record<string, DeclaredFieldSpec>>;
  dependents: readonly (Omit<Dependent, "resource"> & { table: ResourceTable })[];
  parent?: Omit<ParentScope, "resource"> & { table: ResourceTable };
}
