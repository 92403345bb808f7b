// Equipment: machines and tools; RETIRED is final, billed rentals make it history.
import * as schema from "../db/schema.ts";
import { defineResource } from "./define.ts";
import { rentalDependents } from "./rentals.ts";

const ANY_BUT_RETIRED = ["AVAILABLE", "IN_USE", "MAINTENANCE", "RETIRED"];

export const equipment = defineResource(schema.equipment, {
  name: "equipment",
  singular: "Equipment",
  description: "Equipment. Needs the equipment add-on. RETIRED is a final status.",
  addon: "equipment",
  required: ["name"],
  fields: {
    name: { type: "text", aliases: ["equipment", "equipment_name", "machine", "item"] },
    category_id: { type: "ref", target: schema.equipmentCategories },
    serial_number: { type: "text", unique: true, aliases: ["serial", "serial_no", "sn"] },
    daily_rate: { type: "money", aliases: ["rate", "day_rate"] },
  },
  status: {
    values: ANY_BUT_RETIRED,
    initial: ANY_BUT_RETIRED,
    transitions: {
      AVAILABLE: ANY_BUT_RETIRED,
      IN_USE: ANY_BUT_RETIRED,
      MAINTENANCE: ANY_BUT_RETIRED,
      RETIRED: [],
    },
  },
  search: ["name", "serial_number"],
  filters: ["category_id"],
  dependents: rentalDependents("equipment_id", "a billed rental is history"),
});
