// What the feed's long-polls wait on, read for all the companies waited on at once: the types of
// the events committed since the waiters last looked, and where the write path keeps the newest
// event number (for a company that fell too far behind to read its events' types).
import { sql } from "drizzle-orm";
import { selectRows } from "../db/sql.ts";
import type { Executor } from "../db/client.ts";
import { EVENTS_COUNTER } from "../db/company-counters.ts";

/** Company id → its newest sequence number; a company with no events yet is left out. */
export async function newestSequences(
  db: Executor,
  companyIds: readonly number[],
): Promise<Map<number, number>> {
  if (companyIds.length === 0) return new Map();
  const rows = await selectRows<{ company_id: number; value: number }>(
    db,
    sql`
    SELECT company_id, value FROM company_counters
    WHERE name = ${EVENTS_COUNTER} AND company_id IN (${sql.join(
      companyIds.map((id) => sql`${id}`),
      sql`, `,
    )})`,
  );
  return new Map(rows.map((row) => [Number(row.company_id), Number(row.value)]));
}

/** One type of event committed in a company's range: its resource, its newest number and how many. */
export interface NewEvents {
  companyId: number;
  type: string;
  resource: string;
  newest: number;
  count: number;
}

/**
 * For each company, the events numbered in (after, after + span], summed up per type. Numbers
 * follow commit order with no gaps (event-log.ts), so what one read sees of a range is all of it
 * up to its newest number. A company with nothing new has no row.
 */
export async function newEventTypes(
  db: Executor,
  ranges: readonly { companyId: number; after: number }[],
  span: number,
): Promise<NewEvents[]> {
  if (ranges.length === 0) return [];
  const within = ranges.map(
    ({ companyId, after }) =>
      sql`(company_id = ${companyId} AND seq > ${after} AND seq <= ${after + span})`,
  );
  const rows = await selectRows<{
    company_id: number;
    type: string;
    resource: string;
    newest: number;
    how_many: number;
  }>(
    db,
    sql`
    SELECT company_id, type, resource, MAX(seq) AS newest, COUNT(*) AS how_many FROM events
    WHERE ${sql.join(within, sql` OR `)}
    GROUP BY company_id, type, resource`,
  );
  return rows.map((row) => ({
    companyId: Number(row.company_id),
    type: row.type,
    resource: row.resource,
    newest: Number(row.newest),
    count: Number(row.how_many),
  }));
}
