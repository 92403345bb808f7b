// Estimates: editable only in draft; a converted estimate can back a project budget.
import * as schema from "../db/schema.ts";
import { ApiError } from "../http/problem.ts";
import { defineResource } from "./define.ts";

export const estimates = defineResource(schema.estimates, {
  name: "estimates",
  singular: "Estimate",
  description: "Estimates. Needs the estimates add-on. Only a DRAFT estimate may be edited; otherwise only its status may change.",
  addon: "estimates",
  operations: ["list", "get", "create", "update", "delete"],
  required: ["title"],
  fields: {
    title: { type: "text" },
    client_id: { type: "ref", target: schema.clients },
    amount: { type: "money", default: "0.00" },
    currency: { type: "currency", default: "USD" },
    valid_until: { type: "date" },
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
    return new ApiError(409, "estimate_not_draft", `Estimate ${stored.id} is ${stored.status}, not DRAFT: only its status may change (refused: ${others.join(", ")}).`);
  },
  dependents: [
    { table: schema.projects, column: "budget_estimate_id", effect: "block", reason: "a converted estimate backs this project's budget" },
  ],
});
