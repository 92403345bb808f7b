// Plans and their default limits; a company's own overrides win (null = unlimited).
export const PLANS = {
  free: { projects: 3, workers: 5, requestsPerMinute: 120 },
  pro: { projects: 100, workers: 250, requestsPerMinute: 3000 },
  enterprise: { projects: null, workers: null, requestsPerMinute: null },
} as const satisfies Record<
  string,
  { projects: number | null; workers: number | null; requestsPerMinute: number | null }
>;

export type Plan = keyof typeof PLANS;
export const PLAN_NAMES = Object.keys(PLANS) as Plan[];

export function isPlan(value: string): value is Plan {
  return Object.hasOwn(PLANS, value);
}
