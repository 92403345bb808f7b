// Clients: the companies and people projects and estimates are for.
import * as schema from "../db/schema.ts";
import type { ResourceDefinition, ResourceTable } from "./definition.ts";
import { TARGETS } from "./targets.ts";

export const clients: ResourceDefinition = {
  name: "clients",
  singular: "Client",
  description: "Clients. Included with the API add-on.",
  table: schema.clients as unknown as ResourceTable,
  addon: "api",
  operations: ["list", "get", "create", "update", "delete"],
  required: ["name"],
  fields: {
    name: { type: "text", max: 200 },
    email: { type: "email" },
    phone: { type: "text", max: 40 },
    tax_id: { type: "text", max: 32 },
    billing_address: { type: "text", max: 500 },
  },
  status: { values: ["ACTIVE", "INACTIVE"], initial: ["ACTIVE", "INACTIVE"] },
  search: ["name", "email", "tax_id"],
  filters: [],
  dependents: [
    { resource: "projects", table: TARGETS.projects.table, column: "client_id", effect: "keep" },
    { resource: "estimates", table: TARGETS.estimates.table, column: "client_id", effect: "keep" },
  ],
};
