// Equipment rentals: a sub-collection of one piece of equipment; billed rentals are frozen.
import { ApiError } from "../http/problem.ts";
import type { ResourceDefinition } from "./definition.ts";
import { rentalsTable, TARGETS } from "./targets.ts";

export const rentals: ResourceDefinition = {
  name: "rentals",
  singular: "Rental",
  description: "Rentals of one piece of equipment to a project. Needs the equipment add-on. `billed: true` marks a rental billed; a billed rental is history and cannot change.",
  table: rentalsTable,
  addon: "equipment",
  operations: ["list", "get", "create", "update"],
  required: ["project_id", "start_date"],
  readOnly: { equipment_id: { type: "ref", target: TARGETS.equipment, refusedStatus: "RETIRED", description: "The rented equipment (from the path); RETIRED equipment takes no new rentals." } },
  fields: {
    project_id: { type: "ref", target: TARGETS.projects },
    start_date: { type: "date" },
    end_date: { type: "date", notBefore: "start_date" },
    daily_rate: { type: "money" },
    billed: { type: "boolean", default: false },
  },
  search: [],
  filters: [],
  parent: { resource: "equipment", table: TARGETS.equipment.table, column: "equipment_id" },
  conflicts: ["rental_billed"],
  frozen(stored) {
    if (!stored.billed) return undefined;
    return new ApiError(409, "rental_billed", `Rental ${stored.id} is billed: it is history and cannot change.`);
  },
  dependents: [],
};
