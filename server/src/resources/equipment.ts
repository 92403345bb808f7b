// Equipment: machines and tools; RETIRED is final, billed rentals make it history.
import * as schema from "../db/schema.ts";
import type { ResourceDefinition, ResourceTable } from "./definition.ts";
import { rentalsTable, TARGETS } from "./targets.ts";

const ANY_BUT_RETIRED = ["AVAILABLE", "IN_USE", "MAINTENANCE", "RETIRED"];

export const equipment: ResourceDefinition = {
  name: "equipment",
  singular: "Equipment",
  description: "Equipment. Needs the equipment add-on. RETIRED is a final status.",
  table: schema.equipment as unknown as ResourceTable,
  addon: "equipment",
  operations: ["list", "get", "create", "update", "delete"],
  required: ["name"],
  fields: {
    name: { type: "text", max: 200 },
    category_id: { type: "ref", target: TARGETS.equipmentCategories },
    serial_number: { type: "text", max: 64, unique: true },
    daily_rate: { type: "money" },
  },
  status: {
    values: ANY_BUT_RETIRED,
    initial: ANY_BUT_RETIRED,
    transitions: { AVAILABLE: ANY_BUT_RETIRED, IN_USE: ANY_BUT_RETIRED, MAINTENANCE: ANY_BUT_RETIRED, RETIRED: [] },
  },
  search: ["name", "serial_number"],
  filters: ["category_id"],
  dependents: [
    { resource: "rentals", table: rentalsTable, column: "equipment_id", effect: "block", where: { billed: true }, reason: "a billed rental is history" },
    { resource: "rentals", table: rentalsTable, column: "equipment_id", effect: "cascade", where: { billed: false } },
  ],
};
