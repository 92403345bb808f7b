// What a developer does to an endpoint beyond editing it: send it a signed test ping now, and
// replay the events after a point (a cursor or a time) as new deliveries, e.g. after an outage
// longer than the retry window.
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { selectRows } from "../db/sql.ts";
import type { Executor } from "../db/client.ts";
import { withDatabaseBudget } from "../db/deadline.ts";
import { webhookAttempts, webhookDeliveries } from "../db/schema.ts";
import { readFeed } from "../events/event-feed.ts";
import { sequenceOf } from "../events/event-ids.ts";
import { EVENT_RESOURCES } from "../events/event-types.ts";
import { unknownFields, validationFailed } from "../refusals/catalogue.ts";
import { bodyMembers } from "../resources/validation.ts";
import { attemptDelivery } from "./attempt.ts";
import { deliveredBy, findEndpoint } from "./endpoints.ts";
import { signingSecrets } from "./secrets.ts";
const REPLAY_PAGE = 500;
/**
 * Deliveries inserted per statement: each carries its event whole (up to about 10 KB escaped), so a
 * statement stays far below the 4 MiB a database may take in one packet (max_allowed_packet).
 */
const INSERT_ROWS = 100;

export interface TestPing {
  delivery_id: number;
  event_id: string;
  status: "delivered" | "failed";
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  attempted_at: string;
}

/**
 * Sends a signed `ping` event to the endpoint at once and records it in its deliveries log (not in
 * the change feed, and never retried): the answer is the attempt.
 */
export async function testEndpoint(db: Executor, companyId: number, id: number): Promise<TestPing> {
  const endpoint = await findEndpoint(db, companyId, id);
  const eventId = `ping_${randomBytes(12).toString("hex")}`;
  const createdAt = new Date();
  const payload = JSON.stringify({
    id: eventId,
    type: "ping",
    data: { endpoint_id: id },
    created_at: createdAt.toISOString(),
  });
  const attempt = await attemptDelivery(endpoint.url, eventId, payload, signingSecrets(endpoint));
  const status = attempt.delivered ? "delivered" : "failed";
  // The attempt waited on the receiver, not the database (up to its 10 s timeout): recording it
  // gets a database budget of its own.
  const deliveryId = await withDatabaseBudget(() =>
    db.transaction(async (tx) => {
      const [inserted] = await tx.insert(webhookDeliveries).values({
        company_id: companyId,
        endpoint_id: id,
        event_id: eventId,
        event_type: "ping",
        payload,
        status,
        attempts: 1,
        next_attempt_at: attempt.attemptedAt,
        delivered_at: attempt.delivered ? attempt.attemptedAt : null,
        created_at: createdAt,
        updated_at: attempt.attemptedAt,
      });
      const deliveryId = Number(inserted.insertId);
      await tx.insert(webhookAttempts).values({
        company_id: companyId,
        delivery_id: deliveryId,
        status_code: attempt.statusCode,
        error: attempt.error,
        duration_ms: attempt.durationMs,
        attempted_at: attempt.attemptedAt,
      });
      return deliveryId;
    }),
  );
  return {
    delivery_id: deliveryId,
    event_id: eventId,
    status,
    status_code: attempt.statusCode,
    duration_ms: attempt.durationMs,
    error: attempt.error,
    attempted_at: attempt.attemptedAt.toISOString(),
  };
}

/** Where a replay starts: after an event (a cursor), or at a moment. */
type ReplayFrom = { after: string } | { since: Date };

function replayFrom(body: unknown): ReplayFrom {
  const fail = (field: string, code: string, message: string) =>
    validationFailed([{ field, code, message }]);
  const { after, since, ...rest } = bodyMembers(
    body,
    'a JSON object, e.g. {"after": "evt_…"} or {"since": "2026-11-26T08:00:00Z"}',
  );
  const unknown = unknownFields(
    Object.keys(rest),
    "a field of a replay; give after (an event id) or since (a time)",
  );
  if (unknown.length > 0) throw validationFailed(unknown);
  if ((after === undefined) === (since === undefined))
    throw fail(
      "after",
      "required",
      "Give exactly one of after (an event id or next_cursor: the events after it) and since " +
        "(an RFC 3339 time: the events from then on).",
    );
  if (after !== undefined) {
    if (typeof after !== "string" || sequenceOf(after) === undefined)
      throw fail("after", "invalid_value", "after must be an event id (evt_…) or a next_cursor.");
    return { after };
  }
  const moment = typeof since === "string" ? new Date(since) : new Date(Number.NaN);
  if (
    typeof since !== "string" ||
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(since) ||
    Number.isNaN(moment.getTime())
  )
    throw fail(
      "since",
      "invalid_date",
      'since must be an RFC 3339 time, e.g. "2026-11-26T08:00:00Z".',
    );
  return { since: moment };
}

/** The cursor just before the first event at or after `since` (undefined: from the beginning). */
async function cursorBefore(
  db: Executor,
  companyId: number,
  since: Date,
): Promise<string | undefined> {
  const rows = await selectRows<{ id: string }>(
    db,
    sql`SELECT id FROM events WHERE company_id = ${companyId} AND created_at < ${since}
      ORDER BY seq DESC LIMIT 1`,
  );
  return rows[0]?.id;
}

export interface Replay {
  /** Matching events queued again (or that would be, in a dry-run). */
  queued: number;
  dry_run: boolean;
}

/**
 * Queues every event after the point that the endpoint delivers (webhooks/endpoints.ts: subscribed
 * to, readable by its token) and that was already turned into its deliveries (later ones go out
 * as usual) again, once each, in feed order: a delivery
 * row is made pending anew (its retry window starting now), or made for an event that came
 * before the endpoint existed. Their due times follow the feed's order a millisecond apart.
 */
export async function replayEndpoint(
  db: Executor,
  companyId: number,
  id: number,
  body: unknown,
  dryRun: boolean,
): Promise<Replay> {
  const from = replayFrom(body);
  const endpoint = await findEndpoint(db, companyId, id);
  const delivers = deliveredBy(endpoint);
  const through = endpoint.cursor === null ? 0 : (sequenceOf(endpoint.cursor) ?? 0);
  let after = "after" in from ? from.after : await cursorBefore(db, companyId, from.since);
  const now = Date.now();
  let queued = 0;
  for (;;) {
    const page = await readFeed(db, {
      companyId,
      after,
      limit: REPLAY_PAGE,
      resources: EVENT_RESOURCES,
    });
    const reached = page.events.filter((event) => (sequenceOf(event.id) ?? 0) <= through);
    const wanted = reached.filter(delivers.wants);
    if (!dryRun && wanted.length > 0) {
      const payloads = await delivers.payloads(wanted, db);
      const rows = wanted.map((event, index) => {
        const due = new Date(now + queued + index);
        return {
          company_id: companyId,
          endpoint_id: id,
          event_id: event.id,
          event_type: event.type,
          payload: payloads[index]!,
          status: "pending",
          attempts: 0,
          next_attempt_at: due,
          created_at: due,
          updated_at: due,
        };
      });
      for (let from = 0; from < rows.length; from += INSERT_ROWS) {
        await db
          .insert(webhookDeliveries)
          .values(rows.slice(from, from + INSERT_ROWS))
          .onDuplicateKeyUpdate({
            set: {
              status: "pending",
              attempts: 0,
              next_attempt_at: sql`VALUES(next_attempt_at)`,
              lease_owner: null,
              lease_until: null,
              delivered_at: null,
              created_at: sql`VALUES(created_at)`,
              updated_at: sql`VALUES(updated_at)`,
            },
          });
      }
    }
    queued += wanted.length;
    if (reached.length < page.events.length || page.events.length < REPLAY_PAGE) break;
    after = page.nextCursor ?? undefined;
  }
  return { queued, dry_run: dryRun };
}
