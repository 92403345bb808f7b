// Events are kept 30 days; older ones are deleted, and each company remembers the last number
// deleted (its events_purged counter) so that a cursor before it is answered 410 cursor_expired
// instead of silently skipping.
import { sql } from "drizzle-orm";
import { runStatement, selectRows } from "../db/sql.ts";
import type { Executor } from "../db/client.ts";
import { PURGED_COUNTER } from "../db/company-counters.ts";

export const RETENTION_DAYS = 30;

/** Deletes events past retention, one company at a time, in bounded batches. */
export async function purgeExpiredEvents(db: Executor, batch = 5_000): Promise<number> {
  const expired = await selectRows<{ company_id: number; through: number }>(
    db,
    sql`
    SELECT company_id, MAX(seq) AS through FROM events
    WHERE created_at < NOW(3) - INTERVAL ${RETENTION_DAYS} DAY GROUP BY company_id`,
  );
  let total = 0;
  for (const { company_id: companyId, through } of expired) {
    await runStatement(
      db,
      sql`INSERT INTO company_counters (company_id, name, value)
      VALUES (${companyId}, ${PURGED_COUNTER}, ${through})
      ON DUPLICATE KEY UPDATE value = GREATEST(value, VALUES(value))`,
    );
    for (;;) {
      const result = await runStatement(
        db,
        sql`DELETE FROM events WHERE company_id = ${companyId} AND seq <= ${through} LIMIT ${batch}`,
      );
      total += result.affectedRows;
      if (result.affectedRows < batch) break;
    }
  }
  return total;
}
