// The newest event sequence number of each of a set of companies: what long-polls of the feed
// wait on. The one read of where the write path keeps the numbers, for the waiters' loop.
import { sql } from "drizzle-orm";
import type { Executor } from "../db/client.ts";
import { EVENTS_COUNTER } from "../db/company-counters.ts";

/** Company id → its newest sequence number; a company with no events yet is left out. */
export async function newestSequences(
  db: Executor,
  companyIds: readonly number[],
): Promise<Map<number, number>> {
  if (companyIds.length === 0) return new Map();
  const [rows] = (await db.execute(sql`
    SELECT company_id, value FROM company_counters
    WHERE name = ${EVENTS_COUNTER} AND company_id IN (${sql.join(
      companyIds.map((id) => sql`${id}`),
      sql`, `,
    )})`)) as unknown as [{ company_id: number; value: number }[]];
  return new Map(rows.map((row) => [Number(row.company_id), Number(row.value)]));
}
