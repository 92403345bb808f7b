// Clients: the companies and people projects and estimates are for.
import * as schema from "../db/schema.ts";
import { defineResource } from "./define.ts";

export const clients = defineResource(schema.clients, {
  name: "clients",
  singular: "Client",
  description: "Clients. Included with the API add-on.",
  addon: "api",
  operations: ["list", "get", "create", "update", "delete"],
  required: ["name"],
  fields: {
    name: { type: "text" },
    email: { type: "email" },
    phone: { type: "text" },
    tax_id: { type: "text" },
    billing_address: { type: "text" },
  },
  status: { values: ["ACTIVE", "INACTIVE"], initial: ["ACTIVE", "INACTIVE"] },
  search: ["name", "email", "tax_id"],
  filters: [],
  dependents: [
    { table: schema.projects, column: "client_id", effect: "keep" },
    { table: schema.estimates, column: "client_id", effect: "keep" },
  ],
});
