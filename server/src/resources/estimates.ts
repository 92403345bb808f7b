// Estimates: editable only in draft; a converted estimate can back a project budget.
import * as schema from "../db/schema.ts";
import { estimateNotDraft } from "../refusals/catalogue.ts";
import { defineResource } from "./define.ts";

export const estimates = defineResource(schema.estimates, {
  name: "estimates",
  singular: "Estimate",
  description:
    "Estimates. Needs the estimates add-on. Only a DRAFT estimate may be edited; otherwise only its status may change.",
  addon: "estimates",
  required: ["title"],
  fields: {
    title: { type: "text", aliases: ["name", "estimate", "estimate_title", "description"] },
    client_id: { type: "ref", target: schema.clients },
    amount: { type: "money", default: "0.00" },
    currency: { type: "currency", default: "USD" },
    valid_until: { type: "date", aliases: ["valid_to", "expires_on", "expiry_date"] },
  },
  status: {
    values: ["DRAFT", "SENT", "ACCEPTED", "REJECTED", "CONVERTED"],
    initial: ["DRAFT"],
    transitions: {
      DRAFT: ["SENT"],
      SENT: ["ACCEPTED", "REJECTED", "DRAFT"],
      REJECTED: ["DRAFT"],
      ACCEPTED: ["CONVERTED"],
      CONVERTED: [],
    },
  },
  search: ["title"],
  filters: ["client_id"],
  conflicts: ["estimate_not_draft"],
  updateRule(stored, patch) {
    if (stored.status === "DRAFT") return undefined;
    const others = Object.keys(patch).filter((field) => field !== "status");
    if (others.length === 0) return undefined;
    return estimateNotDraft(stored.id, stored.status, others);
  },
  dependents: [
    {
      table: schema.projects,
      column: "budget_estimate_id",
      effect: "block",
      reason: "a converted estimate backs this project's budget",
    },
  ],
});
