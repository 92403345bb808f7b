// Clients: the companies and people projects and estimates are for.
import * as schema from "../db/schema.ts";
import { EMAIL, PHONE, TAX_ID } from "./aliases.ts";
import { defineResource } from "./define.ts";

export const clients = defineResource(schema.clients, {
  name: "clients",
  singular: "Client",
  description: "Clients. Included with the API add-on.",
  addon: "api",
  required: ["name"],
  fields: {
    name: {
      type: "text",
      aliases: ["client", "client_name", "company", "company_name", "customer", "customer_name"],
    },
    email: { type: "email", aliases: EMAIL },
    phone: { type: "text", aliases: PHONE },
    tax_id: { type: "text", sensitive: true, aliases: TAX_ID },
    billing_address: { type: "text", aliases: ["address", "billing"] },
  },
  status: { values: ["ACTIVE", "INACTIVE"], initial: ["ACTIVE", "INACTIVE"] },
  search: ["name", "email", "tax_id"],
  filters: ["tax_id"],
  dependents: [
    { table: schema.projects, column: "client_id", effect: "keep" },
    { table: schema.estimates, column: "client_id", effect: "keep" },
  ],
});
