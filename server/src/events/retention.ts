// Events are kept 30 days; older ones are deleted, and each company remembers the last number
// deleted (its events_purged counter) so that a cursor before it is answered 410 cursor_expired
// instead of silently skipping.
//
// A company's events are numbered in commit order and stamped as they are written, so its expired
// events are its oldest: they are found from its oldest event on along the primary key
// (company_id, seq). No index on created_at, which every event written would pay for (about 1 ms
// of a 500-row batch's commit, bench/README.md).
import { sql } from "drizzle-orm";
import { runStatement, selectRows } from "../db/sql.ts";
import type { Executor } from "../db/client.ts";
import { EVENTS_COUNTER, PURGED_COUNTER } from "../db/company-counters.ts";

export const RETENTION_DAYS = 30;

const EXPIRED = sql`NOW(3) - INTERVAL ${RETENTION_DAYS} DAY`;

/** Deletes events past retention, one company at a time, in bounded batches. */
export async function purgeExpiredEvents(db: Executor, batch = 5_000): Promise<number> {
  // The companies whose oldest event is past retention: one read of the key per company with events.
  const companies = await selectRows<{ company_id: number }>(
    db,
    sql`
    SELECT company_id FROM company_counters AS counter
    WHERE name = ${EVENTS_COUNTER} AND value > 0 AND (
      SELECT created_at FROM events WHERE events.company_id = counter.company_id ORDER BY seq LIMIT 1
    ) < ${EXPIRED}`,
  );
  let total = 0;
  for (const { company_id: companyId } of companies) {
    for (;;) {
      // The last expired one among the company's `batch` oldest events.
      const [oldest] = await selectRows<{ through: number | null; expired: number }>(
        db,
        sql`
        SELECT MAX(seq) AS through, COUNT(*) AS expired FROM (
          SELECT seq, created_at FROM events WHERE company_id = ${companyId} ORDER BY seq LIMIT ${batch}
        ) AS oldest WHERE created_at < ${EXPIRED}`,
      );
      const through = oldest?.through;
      if (through === null || through === undefined) break;
      await runStatement(
        db,
        sql`INSERT INTO company_counters (company_id, name, value)
        VALUES (${companyId}, ${PURGED_COUNTER}, ${through})
        ON DUPLICATE KEY UPDATE value = GREATEST(value, VALUES(value))`,
      );
      const result = await runStatement(
        db,
        sql`DELETE FROM events WHERE company_id = ${companyId} AND seq <= ${through}`,
      );
      total += result.affectedRows;
      if (Number(oldest!.expired) < batch) break;
    }
  }
  return total;
}
