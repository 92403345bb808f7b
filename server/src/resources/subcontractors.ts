// Subcontractors: outside firms by trade, with their insurance expiry.
import * as schema from "../db/schema.ts";
import { EMAIL, PHONE, TAX_ID } from "./aliases.ts";
import { defineResource } from "./define.ts";

export const subcontractors = defineResource(schema.subcontractors, {
  name: "subcontractors",
  singular: "Subcontractor",
  description: "Subcontractors. Needs the subcontractors add-on.",
  addon: "subcontractors",
  required: ["name"],
  fields: {
    name: { type: "text", aliases: ["subcontractor", "company", "company_name", "firm"] },
    trade_id: { type: "ref", target: schema.trades },
    email: { type: "email", aliases: EMAIL },
    phone: { type: "text", aliases: PHONE },
    tax_id: { type: "text", sensitive: true, aliases: TAX_ID },
    insurance_expires_on: {
      type: "date",
      aliases: ["insurance_expiry", "insurance_expires", "insurance_expiration"],
    },
  },
  status: { values: ["ACTIVE", "INACTIVE"], initial: ["ACTIVE", "INACTIVE"] },
  search: ["name", "email", "tax_id"],
  filters: ["trade_id", "tax_id"],
});
