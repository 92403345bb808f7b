// Workers: people on the payroll, limited by the plan's worker quota.
import * as schema from "../db/schema.ts";
import type { ResourceDefinition, ResourceTable } from "./definition.ts";
import { TARGETS } from "./targets.ts";

export const workers: ResourceDefinition = {
  name: "workers",
  singular: "Worker",
  description: "Workers. Included with the API add-on; the plan's quota limits how many live workers a company has.",
  table: schema.workers as unknown as ResourceTable,
  addon: "api",
  operations: ["list", "get", "create", "update", "delete"],
  required: ["name"],
  fields: {
    name: { type: "text", max: 200 },
    email: { type: "email" },
    phone: { type: "text", max: 40 },
    trade_id: { type: "ref", target: TARGETS.trades },
    hourly_rate: { type: "money" },
    hired_on: { type: "date" },
  },
  status: { values: ["ACTIVE", "INACTIVE"], initial: ["ACTIVE", "INACTIVE"] },
  search: ["name", "email"],
  filters: ["trade_id"],
  quota: "workers",
  dependents: [],
};
