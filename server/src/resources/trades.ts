// Trades: a read-only lookup seeded for every company, named by workers and subcontractors.
import * as schema from "../db/schema.ts";
import { defineResource, SEEDED_LOOKUP } from "./define.ts";

export const trades = defineResource(schema.trades, {
  ...SEEDED_LOOKUP,
  name: "trades",
  singular: "Trade",
  description: "Trades a worker or subcontractor can have (read-only, seeded for every company).",
  addon: "api",
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
