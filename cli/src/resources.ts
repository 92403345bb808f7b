// The six resources as the CLI sees them: one row each, from which every resource command is generated.
import type {
  ClientFilters,
  EquipmentFilters,
  ErpClient,
  EstimateFilters,
  ProjectFilters,
  ResourceClient,
  SubcontractorFilters,
  WorkerFilters,
} from "../../sdk/mod.ts";

/** The id filters a list may take besides `q` and `status`; each becomes a `--client-id`-style flag. */
type IdFilter = "client_id" | "trade_id" | "category_id";

export interface ResourceSpec {
  /** The path segment and the command name. */
  name: "projects" | "workers" | "clients" | "estimates" | "subcontractors" | "equipment";
  /** The field a create needs, for help texts. */
  title: "name" | "title";
  filters: readonly IdFilter[];
}

// `satisfies` ties each filter list to the SDK's generated filter type, so a filter the API drops fails to compile.
export const RESOURCES: readonly ResourceSpec[] = [
  { name: "projects", title: "name", filters: ["client_id"] satisfies (keyof ProjectFilters)[] },
  { name: "workers", title: "name", filters: ["trade_id"] satisfies (keyof WorkerFilters)[] },
  { name: "clients", title: "name", filters: [] satisfies (keyof ClientFilters)[] },
  { name: "estimates", title: "title", filters: ["client_id"] satisfies (keyof EstimateFilters)[] },
  { name: "subcontractors", title: "name", filters: ["trade_id"] satisfies (keyof SubcontractorFilters)[] },
  { name: "equipment", title: "name", filters: ["category_id"] satisfies (keyof EquipmentFilters)[] },
];

export const RESOURCE_NAMES = RESOURCES.map((resource) => resource.name);

type Json = Record<string, unknown>;

/** A resource client without the per-resource types: the CLI passes user-typed JSON straight through. */
export type AnyResourceClient = ResourceClient<Json, Json, Json, Json>;

export function resourceClient(erp: ErpClient, name: ResourceSpec["name"]): AnyResourceClient {
  return erp[name] as unknown as AnyResourceClient;
}

/** `client_id` → `--client-id`. */
export const flagOf = (field: string): string => `--${field.replaceAll("_", "-")}`;
