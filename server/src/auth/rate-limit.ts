// Per-company request limits: a fixed one-minute window counted in MySQL, so every server
// process draws on the same budget. One statement per request; unlimited plans skip it.
import { sql } from "drizzle-orm";
import type { ResultSetHeader } from "mysql2";
import type { Database, Executor } from "../db/client.ts";
import { ApiError } from "../http/problem.ts";
import type { AdmissionStage } from "./admission.ts";

export const WINDOW_MS = 60_000;

/**
 * Counts the request in its company's current window and sets RateLimit-Limit, -Remaining and
 * -Reset (seconds until the window ends). Over the limit: 429 rate_limited with Retry-After.
 * The count comes back in the same statement: LAST_INSERT_ID(expr) makes the driver report
 * the updated hit count as insertId (0 when the row was just inserted, i.e. the first hit).
 */
export function rateLimit(db: Database, now: () => number = Date.now): AdmissionStage {
  return async (company, _ctx, headers) => {
    const limit = company.limits.requestsPerMinute;
    if (limit === null) return;
    const at = now();
    const windowStart = Math.floor(at / WINDOW_MS) * WINDOW_MS;
    const [result] = await db.execute(sql`
      INSERT INTO rate_windows (company_id, window_start, hits) VALUES (${company.id}, ${windowStart}, 1)
      ON DUPLICATE KEY UPDATE hits = LAST_INSERT_ID(hits + 1)`) as unknown as [ResultSetHeader];
    const hits = Number(result.insertId) || 1;
    const reset = String(Math.ceil((windowStart + WINDOW_MS - at) / 1000));
    const limits = { "ratelimit-limit": String(limit), "ratelimit-remaining": String(Math.max(0, limit - hits)), "ratelimit-reset": reset };
    Object.assign(headers, limits);
    if (hits > limit) {
      throw new ApiError(429, "rate_limited", `Your ${company.plan} plan allows ${limit} requests a minute; retry in ${reset} s.`, undefined, { ...limits, "retry-after": reset });
    }
  };
}

/** Drops windows that can no longer count (every process is past them). */
export async function purgeRateWindows(db: Executor, at = Date.now()): Promise<void> {
  await db.execute(sql`DELETE FROM rate_windows WHERE window_start < ${at - 2 * WINDOW_MS}`);
}
