// The collections as the CLI sees them, derived from the SDK's generated COLLECTIONS table: every
// resource command is generated from these rows, so a resource the API adds needs no CLI edit.
import {
  type CollectionName,
  COLLECTIONS,
  type CollectionSpec,
  type ErpClient,
  type ResourceClient,
} from "@erp/sdk";

export interface ResourceSpec {
  /** The path segment and the command name. */
  name: string;
  /** The SDK property (`equipmentCategories` for `equipment-categories`). */
  property: CollectionName;
  /** `records` have every subcommand; a `lookup` (trades, equipment categories) is created by its name and renamed. */
  kind: "records" | "lookup";
  /** One record, for help texts: `worker`. */
  singular: string;
  /** The field a create needs, for help texts. */
  title: string;
  /** The `*_id` filters of its list; each becomes a `--client-id`-style flag. */
  filters: readonly string[];
  /** The fields its list takes a range of; each becomes `--hired-on-gte`-style flags. */
  ranges: readonly string[];
  /** The fields a create and an update take, each with a hint of what it holds. */
  fields: CollectionSpec["fields"];
  /** What each of those fields holds (`date`, `money`, …). */
  kinds: CollectionSpec["kinds"];
}

const specs: readonly ResourceSpec[] = (
  Object.entries(COLLECTIONS) as [CollectionName, (typeof COLLECTIONS)[CollectionName]][]
).map(([property, spec]) => ({
  name: spec.command,
  property,
  kind: spec.kind,
  singular: spec.command.replace(/ies$/, "y").replace(/s$/, "").replaceAll("-", " "),
  title: spec.required[0] ?? "name",
  filters: spec.idFilters,
  ranges: spec.ranges,
  fields: spec.fields,
  kinds: spec.kinds,
}));

/** Every collection: the resources and the lookups. */
export const COLLECTION_SPECS: readonly ResourceSpec[] = specs;

/** The collections with records to create, change and delete. */
export const RESOURCES: readonly ResourceSpec[] = specs.filter((spec) => spec.kind === "records");

export const RESOURCE_NAMES: readonly string[] = RESOURCES.map((resource) => resource.name);

/** The SDK's whole collection spec of a command (its fields, import columns, …). */
export function specOf(name: string): CollectionSpec {
  const spec = specs.find((candidate) => candidate.name === name);
  if (!spec) throw new Error(`unknown resource ${name}`);
  return COLLECTIONS[spec.property];
}

type Json = Record<string, unknown>;

/** A resource client without the per-resource types: the CLI passes user-typed JSON straight through. */
export type AnyResourceClient = ResourceClient<
  Json,
  Json,
  Json,
  Json,
  Record<never, never>,
  string,
  string
>;

export function resourceClient(erp: ErpClient, name: string): AnyResourceClient {
  const spec = specs.find((candidate) => candidate.name === name);
  if (!spec) throw new Error(`unknown resource ${name}`);
  return erp[spec.property] as unknown as AnyResourceClient;
}

/** `client_id` → `--client-id`. */
export const flagOf = (field: string): string => `--${field.replaceAll("_", "-")}`;
