// Reading the change feed: a company's events in commit order after a cursor, optionally
// narrowed to a type, a resource or one record's history.
import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../db/client.ts";
import { ApiError, invalidQuery } from "../http/problem.ts";
import { sequenceOf } from "./event-ids.ts";

export interface Event {
  id: string;
  type: string;
  resource: string;
  record_id: number;
  data: { record: Record<string, unknown>; changes?: Record<string, { from: unknown; to: unknown }> };
  request_id: string;
  idempotency_key: string | null;
  created_at: string;
}

export interface FeedQuery {
  companyId: number;
  /** An event id (or a page's next_cursor): only events after it. */
  after?: string;
  limit: number;
  /** Resources the caller may see (its add-ons). */
  resources: readonly string[];
  /** `project.created`, or `project.*` for every action of one resource. */
  type?: string;
  record?: { resource: string; id: number };
}

export interface FeedPage {
  events: Event[];
  /** Where the next page starts: the last event's id, else the cursor given (null: from the start). */
  nextCursor: string | null;
}

interface EventRow {
  id: string;
  type: string;
  resource: string;
  record_id: number;
  data: string;
  request_id: string;
  idempotency_key: Buffer | string | null;
  /** A DATETIME of a raw query: text in UTC (the session's zone), `YYYY-MM-DD hh:mm:ss.fff`. */
  created_at: string;
}

const cursorExpired = (cursor: string): ApiError => new ApiError(410, "cursor_expired",
  `Events up to ${cursor} are past the 30-day retention; start again without \`after\` (or from a newer event) and resync records with \`updated_since\`.`);

/** The sequence number after which to read; 400 for a malformed cursor, 410 for a purged one. */
async function startAfter(db: Executor, companyId: number, after: string | undefined): Promise<number> {
  if (after === undefined) return 0;
  const sequence = sequenceOf(after);
  if (sequence === undefined) throw invalidQuery(`"after" must be an event id (evt_…) or a next_cursor from an earlier page, not "${after}".`);
  const [rows] = await db.execute(sql`SELECT purged_through FROM event_sequences WHERE company_id = ${companyId}`) as unknown as [{ purged_through: number }[]];
  if (sequence < Number(rows[0]?.purged_through ?? 0)) throw cursorExpired(after);
  return sequence;
}

function toEvent(row: EventRow): Event {
  const key = row.idempotency_key;
  return {
    id: row.id,
    type: row.type,
    resource: row.resource,
    record_id: Number(row.record_id),
    data: JSON.parse(row.data) as Event["data"],
    request_id: row.request_id,
    idempotency_key: key === null ? null : typeof key === "string" ? key : key.toString("latin1"),
    created_at: `${row.created_at.replace(" ", "T")}Z`,
  };
}

export async function readFeed(db: Executor, query: FeedQuery): Promise<FeedPage> {
  const after = await startAfter(db, query.companyId, query.after);
  const conditions: SQL[] = [sql`company_id = ${query.companyId}`, sql`seq > ${after}`];
  if (query.record) conditions.push(sql`resource = ${query.record.resource}`, sql`record_id = ${query.record.id}`);
  else conditions.push(sql`resource IN (${sql.join(query.resources.map((name) => sql`${name}`), sql`, `)})`);
  if (query.type?.endsWith(".*")) conditions.push(sql`type LIKE ${`${query.type.slice(0, -2)}.%`}`);
  else if (query.type !== undefined) conditions.push(sql`type = ${query.type}`);
  const [rows] = await db.execute(sql`
    SELECT id, type, resource, record_id, data, request_id, idempotency_key, created_at FROM events
    WHERE ${sql.join(conditions, sql` AND `)} ORDER BY seq LIMIT ${query.limit}`) as unknown as [EventRow[]];
  const events = rows.map(toEvent);
  return { events, nextCursor: events.at(-1)?.id ?? query.after ?? null };
}
