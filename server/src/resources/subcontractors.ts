// Subcontractors: outside firms by trade, with their insurance expiry.
import * as schema from "../db/schema.ts";
import type { ResourceDefinition, ResourceTable } from "./definition.ts";
import { TARGETS } from "./targets.ts";

export const subcontractors: ResourceDefinition = {
  name: "subcontractors",
  singular: "Subcontractor",
  description: "Subcontractors. Needs the subcontractors add-on.",
  table: schema.subcontractors as unknown as ResourceTable,
  addon: "subcontractors",
  operations: ["list", "get", "create", "update", "delete"],
  required: ["name"],
  fields: {
    name: { type: "text", max: 200 },
    trade_id: { type: "ref", target: TARGETS.trades },
    email: { type: "email" },
    phone: { type: "text", max: 40 },
    tax_id: { type: "text", max: 32 },
    insurance_expires_on: { type: "date" },
  },
  status: { values: ["ACTIVE", "INACTIVE"], initial: ["ACTIVE", "INACTIVE"] },
  search: ["name", "email", "tax_id"],
  filters: ["trade_id"],
  dependents: [],
};
