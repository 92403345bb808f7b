// The calling company as a request sees it: plan, add-ons and effective limits.
import type { Addon } from "./addons.ts";
import { isPlan, PLANS, type Plan } from "./plans.ts";

export interface Company {
  id: number;
  name: string;
  plan: Plan;
  addons: ReadonlySet<Addon>;
  limits: { projects: number | null; workers: number | null; requestsPerMinute: number | null };
}

export interface CompanyRow {
  id: number;
  name: string;
  plan: string;
  addons: unknown;
  max_projects: number | null;
  max_workers: number | null;
  rate_limit: number | null;
}

export function companyFromRow(row: CompanyRow): Company {
  const plan: Plan = isPlan(row.plan) ? row.plan : "free";
  const defaults = PLANS[plan];
  const addons = Array.isArray(row.addons)
    ? row.addons
    : (JSON.parse(String(row.addons)) as string[]);
  return {
    id: Number(row.id),
    name: row.name,
    plan,
    addons: new Set(addons as Addon[]),
    limits: {
      projects: row.max_projects ?? defaults.projects,
      workers: row.max_workers ?? defaults.workers,
      requestsPerMinute: row.rate_limit ?? defaults.requestsPerMinute,
    },
  };
}
