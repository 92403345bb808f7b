// Read-only lookups seeded for every company: trades and equipment categories.
import * as schema from "../db/schema.ts";
import { defineResource } from "./define.ts";

export const trades = defineResource(schema.trades, {
  name: "trades",
  singular: "Trade",
  description: "Trades a worker or subcontractor can have (read-only, seeded for every company).",
  tag: "lookups",
  addon: "api",
  operations: ["list"],
  required: ["name"],
  fields: { name: { type: "text" } },
  search: [],
  filters: [],
  seed: [
    "Carpentry",
    "Concrete",
    "Electrical",
    "Plumbing",
    "HVAC",
    "Masonry",
    "Painting",
    "Roofing",
    "General labor",
  ],
});

export const equipmentCategories = defineResource(schema.equipmentCategories, {
  name: "equipment-categories",
  singular: "EquipmentCategory",
  description:
    "Equipment categories (read-only, seeded for every company). Needs the equipment add-on.",
  tag: "lookups",
  addon: "equipment",
  operations: ["list"],
  required: ["name"],
  fields: { name: { type: "text" } },
  search: [],
  filters: [],
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
