// What a resource is: its table, writable fields, states, filters and delete rules. Routes,
// validation, OpenAPI schemas and the SDK types are all derived from these definitions.
import type { MySqlColumn, MySqlTable } from "drizzle-orm/mysql-core";
import type { ApiError } from "../http/problem.ts";

export type Addon = "api" | "estimates" | "subcontractors" | "equipment";
export const ADDONS: readonly Addon[] = ["api", "estimates", "subcontractors", "equipment"];

// Drizzle's column types are too precise to write generic CRUD against; the definitions
// stay typed by field name and the generic code reads columns through this shape.
export type ResourceTable = MySqlTable & Record<string, MySqlColumn>;

/** A table a reference field may point at; `softDeleted` tables hide deleted rows. */
export interface RefTarget {
  resource: string;
  table: ResourceTable;
  softDeleted: boolean;
  addon: Addon;
}

export type FieldSpec =
  | { type: "text"; max: number; unique?: boolean; description?: string }
  | { type: "email"; description?: string }
  | { type: "money"; default?: string; description?: string }
  | { type: "date"; notBefore?: string; description?: string }
  | { type: "enum"; values: readonly string[]; default?: string; description?: string }
  | { type: "currency"; default: string; description?: string }
  | { type: "ref"; target: RefTarget; requiredStatus?: string; refusedStatus?: string; description?: string }
  | { type: "boolean"; default?: boolean; description?: string };

export interface StateMachine {
  values: readonly string[];
  /** Statuses a create may start in; the first is the default. */
  initial: readonly string[];
  /** Allowed next statuses; absent means any status may follow any other. */
  transitions?: Readonly<Record<string, readonly string[]>>;
}

export type StoredRecord = Record<string, unknown> & { id: number };

/** A record elsewhere that points at the one being deleted. */
export interface Dependent {
  resource: string;
  table: ResourceTable;
  column: string;
  /** keep: it stays and is listed in would_keep; block: it forbids the delete; cascade: deleted with it. */
  effect: "keep" | "block" | "cascade";
  /** Narrows which referencing rows take this effect (e.g. billed rentals). */
  where?: Record<string, unknown>;
  reason?: string;
}

export interface ParentScope {
  /** The parent resource, whose id is the `{id}` path parameter. */
  resource: string;
  table: ResourceTable;
  column: string;
}

export type Operation = "list" | "get" | "create" | "update" | "delete";

export interface ResourceDefinition {
  name: string;
  singular: string;
  description: string;
  table: ResourceTable;
  addon: Addon;
  operations: readonly Operation[];
  required: readonly string[];
  fields: Readonly<Record<string, FieldSpec>>;
  /** Fields shown on records but never written by a client (e.g. a rental's equipment_id). */
  readOnly?: Readonly<Record<string, FieldSpec>>;
  status?: StateMachine;
  search: readonly string[];
  filters: readonly ("client_id" | "trade_id" | "category_id")[];
  quota?: "projects" | "workers";
  parent?: ParentScope;
  /** Rules beyond types and transitions, checked against the stored record on update. */
  updateRule?: (stored: StoredRecord, patch: Record<string, unknown>) => ApiError | undefined;
  /** A stored record that refuses any change (e.g. a billed rental). */
  frozen?: (stored: StoredRecord) => ApiError | undefined;
  /** The 409 codes `updateRule` and `frozen` may return, for the OpenAPI document. */
  conflicts?: readonly string[];
  dependents: readonly Dependent[];
}
