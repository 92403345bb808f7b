// The calling company as a request sees it: plan, add-ons and effective limits.
import type { Addon } from "./addons.ts";
import { isPlan, PLANS, type Plan, QUOTA_NAMES, QUOTAS, type QuotaName } from "./plans.ts";

export interface Company {
  id: number;
  name: string;
  plan: Plan;
  addons: ReadonlySet<Addon>;
  /** The requests a minute and each quota of the plan (`QUOTAS`), the company's overrides applied. */
  limits: { requestsPerMinute: number | null } & Readonly<Record<QuotaName, number | null>>;
}

export interface CompanyRow {
  id: number;
  name: string;
  plan: string;
  addons: unknown;
  quota_overrides: unknown;
  rate_limit: number | null;
}

/** A JSON column as the driver hands it: parsed by MySQL, text from MariaDB. */
const jsonValue = (value: unknown): unknown =>
  typeof value === "string" ? JSON.parse(value) : value;

export function companyFromRow(row: CompanyRow): Company {
  const plan: Plan = isPlan(row.plan) ? row.plan : "free";
  const addons = jsonValue(row.addons) as Addon[];
  const overrides = (jsonValue(row.quota_overrides) ?? {}) as Partial<Record<QuotaName, number>>;
  const quotas = Object.fromEntries(
    QUOTA_NAMES.map((name) => [name, overrides[name] ?? QUOTAS[name][plan]]),
  ) as Record<QuotaName, number | null>;
  return {
    id: Number(row.id),
    name: row.name,
    plan,
    addons: new Set(addons),
    limits: { ...quotas, requestsPerMinute: row.rate_limit ?? PLANS[plan].requestsPerMinute },
  };
}
