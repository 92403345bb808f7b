// Subcontractors: outside firms by trade, with their insurance expiry.
import * as schema from "../db/schema.ts";
import { defineResource } from "./define.ts";

export const subcontractors = defineResource(schema.subcontractors, {
  name: "subcontractors",
  singular: "Subcontractor",
  description: "Subcontractors. Needs the subcontractors add-on.",
  addon: "subcontractors",
  operations: ["list", "get", "create", "update", "delete"],
  required: ["name"],
  fields: {
    name: { type: "text" },
    trade_id: { type: "ref", target: schema.trades },
    email: { type: "email" },
    phone: { type: "text" },
    tax_id: { type: "text" },
    insurance_expires_on: { type: "date" },
  },
  status: { values: ["ACTIVE", "INACTIVE"], initial: ["ACTIVE", "INACTIVE"] },
  search: ["name", "email", "tax_id"],
  filters: ["trade_id"],
});
