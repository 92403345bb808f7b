// Workers: people on the payroll, limited by the plan's worker quota.
import * as schema from "../db/schema.ts";
import { EMAIL, PHONE } from "./aliases.ts";
import { defineResource } from "./define.ts";

export const workers = defineResource(schema.workers, {
  name: "workers",
  singular: "Worker",
  description:
    "Workers. Included with the API add-on; the plan's quota limits how many live workers a company has.",
  addon: "api",
  required: ["name"],
  fields: {
    name: {
      type: "text",
      aliases: ["full_name", "worker", "worker_name", "employee", "employee_name"],
    },
    email: { type: "email", aliases: EMAIL },
    phone: { type: "text", aliases: PHONE },
    trade_id: { type: "ref", target: schema.trades },
    hourly_rate: {
      type: "money",
      sensitive: true,
      aliases: ["rate", "hourly", "pay_rate", "wage"],
    },
    hired_on: { type: "date", aliases: ["hire_date", "hired", "date_hired", "start_date"] },
  },
  status: { values: ["ACTIVE", "INACTIVE"], initial: ["ACTIVE", "INACTIVE"] },
  search: ["name", "email"],
  filters: ["trade_id"],
  quota: "workers",
});
