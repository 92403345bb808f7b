// Reading the change feed: a company's events in commit order after a cursor, optionally
// narrowed to a type, a resource or one record's history; where the feed ends now; and a read
// that waits for the next event (a long-poll).
import { sql, type SQL } from "drizzle-orm";
import { selectRows } from "../db/sql.ts";
import type { Executor } from "../db/client.ts";
import { withDatabaseBudget } from "../db/deadline.ts";
import { cursorExpired, invalidQuery } from "../refusals/catalogue.ts";
import { PURGED_COUNTER, readCounter } from "../db/company-counters.ts";
import { cursorAt, sequenceOf } from "./event-ids.ts";
import type { Event } from "./event-schema.ts";
import type { EventFilter, FeedWaiters } from "./feed-waiters.ts";

export interface FeedQuery {
  companyId: number;
  /** An event id (or a page's next_cursor): only events after it. */
  after?: string;
  limit: number;
  /** Resources the caller may see (its company's add-ons, its token's read scopes). */
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

/** The sequence number after which to read; 400 for a malformed cursor, 410 for a purged one. */
async function startAfter(
  db: Executor,
  companyId: number,
  after: string | undefined,
): Promise<number> {
  if (after === undefined) return 0;
  const sequence = sequenceOf(after);
  if (sequence === undefined)
    throw invalidQuery(
      `"after" must be an event id (evt_…) or a next_cursor from an earlier page, not "${after}".`,
    );
  if (sequence < (await readCounter(db, companyId, PURGED_COUNTER))) throw cursorExpired(after);
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
  if (query.record)
    conditions.push(sql`resource = ${query.record.resource}`, sql`record_id = ${query.record.id}`);
  else if (query.resources.length === 0)
    // A token that may read none of the resources follows an empty feed.
    conditions.push(sql`FALSE`);
  else
    conditions.push(
      sql`resource IN (${sql.join(
        query.resources.map((name) => sql`${name}`),
        sql`, `,
      )})`,
    );
  if (query.type?.endsWith(".*")) conditions.push(sql`type LIKE ${`${query.type.slice(0, -2)}.%`}`);
  else if (query.type !== undefined) conditions.push(sql`type = ${query.type}`);
  const rows = await selectRows<EventRow>(
    db,
    sql`
    SELECT id, type, resource, record_id, data, request_id, idempotency_key, created_at FROM events
    WHERE ${sql.join(conditions, sql` AND `)} ORDER BY seq LIMIT ${query.limit}`,
  );
  const events = rows.map(toEvent);
  return { events, nextCursor: events.at(-1)?.id ?? query.after ?? null };
}

/**
 * The cursor of the company's newest event, so a reader starts from now. With no event left (none
 * yet, or all past retention), a cursor at the last number purged: it is not expired.
 */
export async function latestCursor(db: Executor, companyId: number): Promise<string> {
  const rows = await selectRows<{ newest: string | null; purged_through: number | null }>(
    db,
    sql`
    SELECT (SELECT id FROM events WHERE company_id = ${companyId} ORDER BY seq DESC LIMIT 1) AS newest,
      (SELECT value FROM company_counters WHERE company_id = ${companyId}
        AND name = ${PURGED_COUNTER}) AS purged_through`,
  );
  return rows[0]?.newest ?? cursorAt(Number(rows[0]?.purged_through ?? 0));
}

/** What a page of the feed would show, as a test of one event's type and resource. */
export function filterOf(query: FeedQuery): EventFilter {
  const resources = new Set(query.record ? [query.record.resource] : query.resources);
  const type = query.type;
  const prefix = type?.endsWith(".*") ? type.slice(0, -1) : undefined;
  return (kind) =>
    resources.has(kind.resource) &&
    (type === undefined ||
      (prefix === undefined ? kind.type === type : kind.type.startsWith(prefix)));
}

/**
 * readFeed, but an empty page waits up to `seconds` for an event after the cursor and is read
 * again when one it would show commits (other events leave it waiting). The wait holds no
 * connection and draws on no database budget; each read after it gets a budget of its own. Empty
 * when the time is up, the client left (`signal`) or the server shuts down.
 */
export async function waitForFeed(
  db: Executor,
  waiters: FeedWaiters,
  query: FeedQuery,
  seconds: number,
  signal?: AbortSignal,
): Promise<FeedPage> {
  const deadline = Date.now() + seconds * 1000;
  let page = await readFeed(db, query);
  let seen = query.after === undefined ? 0 : sequenceOf(query.after)!;
  const wants = filterOf(query);
  while (page.events.length === 0) {
    const newest = await waiters.wait(query.companyId, seen, wants, deadline - Date.now(), signal);
    if (newest === undefined) break;
    seen = newest;
    page = await withDatabaseBudget(() => readFeed(db, query));
  }
  return page;
}
