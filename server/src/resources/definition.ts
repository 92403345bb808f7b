// What a resource is: its table, writable fields, states, filters and delete rules. Routes,
// validation, OpenAPI schemas and the SDK types are all derived from these definitions.
import type { MySqlColumn, MySqlTable } from "drizzle-orm/mysql-core";
import type { Addon } from "../auth/addons.ts";
import type { ApiError } from "../http/problem.ts";

// Drizzle's column types are too precise to write generic CRUD against; the definitions
// stay typed by column name and the generic code reads columns through this shape.
export type ResourceTable = MySqlTable & Record<string, MySqlColumn>;

/** A field as a definition declares it; its length and nullability come from its column. */
export type FieldDeclaration =
  | { type: "text"; unique?: boolean; description?: string }
  | { type: "email"; description?: string }
  | { type: "money"; default?: string; description?: string }
  | { type: "date"; notBefore?: string; description?: string }
  | { type: "enum"; values: readonly string[]; default?: string; description?: string }
  | { type: "currency"; default: string; description?: string }
  /** `target` is the referenced table; the registry knows its resource. */
  | { type: "ref"; target: MySqlTable; requiredStatus?: string; refusedStatus?: string; description?: string }
  | { type: "boolean"; default?: boolean; description?: string };

type Completed<D> = D extends unknown ? D & { nullable: boolean; max: number | undefined } : never;

/** A declared field completed from its column: `max` (characters) for text, `nullable`. */
export type FieldSpec = Completed<FieldDeclaration>;

export interface StateMachine {
  values: readonly string[];
  /** Statuses a create may start in; the first is the default. */
  initial: readonly string[];
  /** Allowed next statuses; absent means any status may follow any other. */
  transitions?: Readonly<Record<string, readonly string[]>>;
}

export type StoredRecord = Record<string, unknown> & { id: number };

/** Rows of another table that point at the record being deleted. */
export interface Dependent {
  table: ResourceTable;
  column: string;
  /** keep: it stays and is listed in would_keep; block: it forbids the delete; cascade: deleted with it. */
  effect: "keep" | "block" | "cascade";
  /** Narrows which referencing rows take this effect (e.g. billed rentals). */
  where?: Record<string, unknown>;
  reason?: string;
}

/** A sub-collection's parent: its table, the column naming it, the member's path parameter. */
export interface ParentScope {
  table: ResourceTable;
  column: string;
  /** The path parameter of one member, e.g. `rental_id` in /v1/equipment/{id}/rentals/{rental_id}. */
  memberParam: string;
}

/** `batch` and `upsert` come with `create` on every top-level resource with an `external_id` column. */
export type Operation = "list" | "get" | "create" | "update" | "delete" | "batch" | "upsert";

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
  quota?: "projects" | "workers";
  parent?: ParentScope;
  /** Rows every new company starts with (the `name`s of a lookup). */
  seed?: readonly string[];
  /** Rules beyond types and transitions, checked against the stored record on update. */
  updateRule?: (stored: StoredRecord, patch: Record<string, unknown>) => ApiError | undefined;
  /** A stored record that refuses any change (e.g. a billed rental). */
  frozen?: (stored: StoredRecord) => ApiError | undefined;
  /** The 409 codes `updateRule` and `frozen` may return, for the OpenAPI document. */
  conflicts?: readonly string[];
  dependents: readonly Dependent[];
}
