// Plans and their default limits; a company's own overrides win (null = unlimited).
export const PLANS = {
  free: { requestsPerMinute: 120 },
  pro: { requestsPerMinute: 3000 },
  enterprise: { requestsPerMinute: null },
} as const satisfies Record<string, { requestsPerMinute: number | null }>;

export type Plan = keyof typeof PLANS;
export const PLAN_NAMES = Object.keys(PLANS) as Plan[];

/**
 * The live records each plan allows of a limited resource, one line per resource (null =
 * unlimited). A definition names its line with `quota`; the company's limits, the administrator's
 * overrides (`--max-<resource>`) and `GET /v1/usage` follow from this table.
 */
export const QUOTAS = {
  projects: { free: 3, pro: 100, enterprise: null },
  workers: { free: 5, pro: 250, enterprise: null },
} as const satisfies Record<string, Record<Plan, number | null>>;

export type QuotaName = keyof typeof QUOTAS;

/** How many custom fields a company may define per resource (docs/custom-fields.md). */
export const CUSTOM_FIELDS_PER_RESOURCE: Readonly<Record<Plan, number>> = {
  free: 5,
  pro: 50,
  enterprise: 200,
};
export const QUOTA_NAMES = Object.keys(QUOTAS) as QuotaName[];

export function isPlan(value: string): value is Plan {
  return Object.hasOwn(PLANS, value);
}

export function isQuotaName(value: string): value is QuotaName {
  return Object.hasOwn(QUOTAS, value);
}

const MIB = 1024 * 1024;
/** The bytes of attachments each plan keeps (docs/attachments.md). */
export const STORAGE_BYTES = {
  free: 100 * MIB,
  pro: 10 * 1024 * MIB,
  enterprise: 1024 * 1024 * MIB,
} as const satisfies Record<Plan, number>;
