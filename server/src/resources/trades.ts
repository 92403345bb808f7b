// Trades: a lookup seeded for every company and then managed by it, named by workers and
// subcontractors, who keep a trade that is deleted.
import * as schema from "../db/schema.ts";
import { defineResource, LOOKUP } from "./define.ts";

export const trades = defineResource(schema.trades, {
  ...LOOKUP,
  name: "trades",
  singular: "Trade",
  description:
    "Trades a worker or subcontractor can have: seeded for every company, then the company's " +
    "own to add, rename and delete.",
  addon: "api",
  lookup: {
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
  },
  dependents: [
    { table: schema.workers, column: "trade_id", effect: "keep" },
    { table: schema.subcontractors, column: "trade_id", effect: "keep" },
  ],
});
