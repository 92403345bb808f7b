// Equipment categories: a lookup seeded for every company and then managed by it, behind the
// equipment add-on, named by equipment, which keeps a category that is deleted.
import * as schema from "../db/schema.ts";
import { defineResource, LOOKUP } from "./define.ts";

export const equipmentCategories = defineResource(schema.equipmentCategories, {
  ...LOOKUP,
  name: "equipment-categories",
  singular: "EquipmentCategory",
  description:
    "Equipment categories: seeded for every company, then the company's own to add, rename and " +
    "delete. Needs the equipment add-on.",
  addon: "equipment",
  lookup: {
    seed: [
      "Excavators",
      "Loaders",
      "Cranes",
      "Aerial lifts",
      "Generators",
      "Compressors",
      "Scaffolding",
      "Vehicles",
      "Hand tools",
    ],
  },
  dependents: [{ table: schema.equipment, column: "category_id", effect: "keep" }],
});
