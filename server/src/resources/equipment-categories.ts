// Equipment categories: a read-only lookup seeded for every company, behind the equipment add-on.
import * as schema from "../db/schema.ts";
import { defineResource, SEEDED_LOOKUP } from "./define.ts";

export const equipmentCategories = defineResource(schema.equipmentCategories, {
  ...SEEDED_LOOKUP,
  name: "equipment-categories",
  singular: "EquipmentCategory",
  description:
    "Equipment categories (read-only, seeded for every company). Needs the equipment add-on.",
  addon: "equipment",
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
});
