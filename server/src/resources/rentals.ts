// Equipment rentals: a sub-collection of one piece of equipment; billed rentals are frozen.
import * as schema from "../db/schema.ts";
import { rentalBilled } from "../refusals/catalogue.ts";
import { type DependentDeclaration, defineResource } from "./define.ts";

/**
 * How the rentals naming a record (by `column`) hold on its delete: a billed rental is history
 * (`reason`) and blocks it; the unbilled ones go with it.
 */
export const rentalDependents = (
  column: "equipment_id" | "project_id",
  reason: string,
): DependentDeclaration[] => [
  { table: schema.rentals, column, effect: "block", where: { billed: true }, reason },
  { table: schema.rentals, column, effect: "cascade", where: { billed: false } },
];

export const rentals = defineResource(schema.rentals, {
  name: "rentals",
  singular: "Rental",
  description:
    "Rentals of one piece of equipment to a project. Needs the equipment add-on. `billed: true` " +
    "marks a rental billed; a billed rental is history and cannot change.",
  addon: "equipment",
  operations: ["list", "get", "create", "update"],
  required: ["project_id", "start_date"],
  readOnly: {
    equipment_id: {
      type: "ref",
      target: schema.equipment,
      refusedStatus: "RETIRED",
      description: "The rented equipment (from the path); RETIRED equipment takes no new rentals.",
    },
  },
  fields: {
    project_id: { type: "ref", target: schema.projects },
    start_date: { type: "date" },
    end_date: { type: "date", notBefore: "start_date" },
    daily_rate: { type: "money" },
    billed: { type: "boolean", default: false },
  },
  search: [],
  filters: [],
  parent: { table: schema.equipment, column: "equipment_id", memberParam: "rental_id" },
  conflicts: ["rental_billed"],
  frozen(stored) {
    if (!stored.billed) return undefined;
    return rentalBilled(stored.id);
  },
});
