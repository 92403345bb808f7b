// Projects: billing mode locked once out of draft, budget backed by a converted estimate.
import * as schema from "../db/schema.ts";
import { billingModeLocked } from "../refusals/catalogue.ts";
import { defineResource } from "./define.ts";
import { rentalDependents } from "./rentals.ts";

export const projects = defineResource(schema.projects, {
  name: "projects",
  singular: "Project",
  description:
    "Construction projects. Included with the API add-on; the plan's quota limits how many live " +
    "projects a company has.",
  addon: "api",
  required: ["name"],
  fields: {
    name: { type: "text", aliases: ["project", "project_name", "job", "job_name"] },
    code: {
      type: "text",
      unique: true,
      aliases: ["project_code", "project_number", "job_code", "job_number"],
    },
    client_id: { type: "ref", target: schema.clients },
    billing_mode: {
      type: "enum",
      values: ["FIXED_PRICE", "TIME_AND_MATERIALS", "COST_PLUS"],
      default: "FIXED_PRICE",
      description: "Editable only while the project is in DRAFT.",
    },
    budget_estimate_id: { type: "ref", target: schema.estimates, requiredStatus: "CONVERTED" },
    budget_amount: { type: "money", aliases: ["budget"] },
    currency: { type: "currency", default: "USD" },
    start_date: { type: "date" },
    end_date: { type: "date", notBefore: "start_date" },
    address: { type: "text", aliases: ["site", "site_address", "location"] },
  },
  status: {
    values: ["DRAFT", "ACTIVE", "ON_HOLD", "COMPLETED", "CANCELLED"],
    initial: ["DRAFT", "ACTIVE"],
    transitions: {
      DRAFT: ["ACTIVE", "CANCELLED"],
      ACTIVE: ["ON_HOLD", "COMPLETED", "CANCELLED"],
      ON_HOLD: ["ACTIVE", "CANCELLED"],
      COMPLETED: [],
      CANCELLED: [],
    },
  },
  search: ["name", "code", "address"],
  filters: ["client_id"],
  quota: "projects",
  conflicts: ["billing_mode_locked"],
  updateRule(stored, patch) {
    if (
      patch.billing_mode === undefined ||
      patch.billing_mode === stored.billing_mode ||
      stored.status === "DRAFT"
    )
      return undefined;
    return billingModeLocked(stored.id, stored.status);
  },
  dependents: rentalDependents("project_id", "a billed equipment rental is history"),
});
