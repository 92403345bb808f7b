// Webhook endpoints of a company: validated input, the stored rows as the API shows them, the
// secret returned only when it is made, and each endpoint's deliveries with their attempts. An
// endpoint delivers what the token that last made or changed it may read: it keeps that token's
// scopes, and a subscription that names a resource the token may not read is refused (403). Its
// deliveries carry sensitive fields only when it is set to `include_sensitive`, which only a token
// holding `sensitive` may do (403 otherwise); a change by any other token turns it off.
import { and, asc, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import { selectRows } from "../db/sql.ts";
import type { Executor } from "../db/client.ts";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "../db/schema.ts";
import { EVENT_NOUNS, resourceOfType, SUBSCRIPTIONS } from "../events/event-types.ts";
import type { Event } from "../events/event-schema.ts";
import { shownEvents } from "../events/shown-event.ts";
import {
  insufficientScope,
  notFound,
  unknownFields,
  validationFailed,
} from "../refusals/catalogue.ts";
import { bodyMembers } from "../resources/validation.ts";
import { type ReadView, storedReadView, storedScopes } from "../resources/visibility.ts";
import type { Delivery, Endpoint, EndpointWithSecret } from "./endpoint-schemas.ts";
import { afterRotation, MAX_EARLIER_SECRETS, newSecret } from "./secrets.ts";
import { checkTarget } from "./targets.ts";

type Row = typeof webhookEndpoints.$inferSelect;

const present = (row: Row): Endpoint => ({
  id: Number(row.id),
  url: row.url,
  events: JSON.parse(row.events) as string[],
  description: row.description ?? null,
  enabled: Boolean(row.enabled),
  include_sensitive: Boolean(row.include_sensitive),
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

/** Does `type` (project.created) match one of the endpoint's patterns? */
function subscribes(patterns: readonly string[], type: string): boolean {
  const [noun] = type.split(".");
  return patterns.some((pattern) => pattern === "*" || pattern === type || pattern === `${noun}.*`);
}

/** What an endpoint delivers: which events, and their payloads. */
export interface Deliveries {
  /** A type it subscribes to, of a resource the token that last made or changed it may read. */
  wants(event: { type: string; resource: string }): boolean;
  /** The events as that token sees them, sensitive fields only with `include_sensitive`. */
  payloads(events: readonly Event[], db: Executor): Promise<string[]>;
}

export function deliveredBy(
  endpoint: Pick<Row, "company_id" | "events" | "scopes" | "include_sensitive">,
): Deliveries {
  const patterns = JSON.parse(endpoint.events) as string[];
  const view = storedReadView(endpoint.scopes, endpoint.include_sensitive);
  return {
    wants: (event) => subscribes(patterns, event.type) && view.readsEventsOf(event.resource),
    payloads: async (events, db) =>
      (await shownEvents(events, view, endpoint.company_id, db)).map((event) =>
        JSON.stringify(event),
      ),
  };
}

/**
 * `include_sensitive` as the writing token may set it: true only from a token holding `sensitive`
 * (403 naming it otherwise); a token without it leaves the endpoint without sensitive fields.
 */
function sensitiveSetting(
  sent: boolean | undefined,
  view: ReadView,
): { include_sensitive?: boolean } {
  if (sent === true && !view.seesEverySensitive) throw insufficientScope(["sensitive"]);
  if (!view.seesEverySensitive) return { include_sensitive: false };
  return sent === undefined ? {} : { include_sensitive: sent };
}

/** 403 insufficient_scope for a subscription naming a resource `view` may not read (`*` is all it reads). */
function refuseUnreadable(patterns: readonly string[], view: ReadView): void {
  for (const pattern of patterns) {
    const def = resourceOfType(pattern);
    if (def) view.mustRead(def);
    else if (pattern.startsWith("attachment.")) view.mustReadEvents("attachments");
  }
}

/** Every problem of a body at once, as for the other resources. */
async function validate(
  body: unknown,
  partial: boolean,
): Promise<Partial<Pick<Row, "url" | "events" | "description" | "enabled" | "include_sensitive">>> {
  const { url, events, description, enabled, include_sensitive, ...rest } = bodyMembers(
    body,
    'a JSON object, e.g. {"url": "https://example.com/hooks", "events": ["project.*"]}',
  );
  const errors = unknownFields(
    Object.keys(rest),
    "a field of webhook endpoints; the writable fields are url, events, description, enabled, include_sensitive",
  );
  const values: Partial<
    Pick<Row, "url" | "events" | "description" | "enabled" | "include_sensitive">
  > = {};
  if (url === undefined) {
    if (!partial)
      errors.push({
        field: "url",
        code: "required",
        message: "url is required: where to POST the events.",
      });
  } else if (typeof url !== "string" || url.length > 2048) {
    errors.push({
      field: "url",
      code: "invalid_type",
      message: "url must be a URL of at most 2048 characters.",
    });
  } else {
    const checked = await checkTarget(url);
    if ("refused" in checked)
      errors.push({ field: "url", code: "invalid_url", message: `url ${checked.refused}.` });
    else values.url = url;
  }
  if (events === undefined) {
    if (!partial)
      errors.push({
        field: "events",
        code: "required",
        message:
          'events is required: the event types to send, e.g. ["project.*", "worker.updated"].',
      });
  } else if (
    !Array.isArray(events) ||
    events.length === 0 ||
    events.some((e) => typeof e !== "string")
  ) {
    errors.push({
      field: "events",
      code: "invalid_type",
      message: 'events must be a non-empty array of event types, e.g. ["project.*"].',
    });
  } else {
    const unknown = (events as string[]).filter((e) => !SUBSCRIPTIONS.includes(e));
    if (unknown.length > 0)
      errors.push({
        field: "events",
        code: "invalid_enum",
        message:
          `Unknown event type${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}: use ` +
          `<resource>.<created|updated|deleted|*> with one of ${EVENT_NOUNS.join(", ")}, or ` +
          `*.`,
      });
    else values.events = JSON.stringify([...new Set(events as string[])]);
  }
  if (description !== undefined) {
    if (description !== null && (typeof description !== "string" || [...description].length > 500))
      errors.push({
        field: "description",
        code: "too_long",
        message: "description must be text of at most 500 characters, or null.",
      });
    else values.description = description as string | null;
  }
  for (const [field, value] of [
    ["enabled", enabled],
    ["include_sensitive", include_sensitive],
  ] as const) {
    if (value === undefined) continue;
    if (typeof value !== "boolean")
      errors.push({ field, code: "invalid_type", message: `${field} must be true or false.` });
    else values[field] = value;
  }
  if (errors.length > 0) throw validationFailed(errors);
  return values;
}

const live = (companyId: number, id?: number) =>
  and(
    eq(webhookEndpoints.company_id, companyId),
    isNull(webhookEndpoints.deleted_at),
    ...(id === undefined ? [] : [eq(webhookEndpoints.id, id)]),
  );

/** The company's live endpoint `id` as stored, or 404. */
export async function findEndpoint(db: Executor, companyId: number, id: number): Promise<Row> {
  const [row] = await db.select().from(webhookEndpoints).where(live(companyId, id)).limit(1);
  if (!row) throw notFound("webhook endpoint", id);
  return row;
}

export async function createEndpoint(
  db: Executor,
  companyId: number,
  body: unknown,
  view: ReadView,
): Promise<EndpointWithSecret> {
  const values = await validate(body, false);
  refuseUnreadable(JSON.parse(values.events!) as string[], view);
  const sensitive = sensitiveSetting(values.include_sensitive, view);
  // Events from now on: the cursor starts at the company's latest event.
  const latest = await selectRows<{ id: string }>(
    db,
    sql`SELECT id FROM events WHERE company_id = ${companyId} ORDER BY seq DESC LIMIT 1`,
  );
  const secret = newSecret();
  const now = new Date();
  const [result] = await db.insert(webhookEndpoints).values({
    company_id: companyId,
    url: values.url!,
    events: values.events!,
    description: values.description ?? null,
    enabled: values.enabled ?? true,
    secret,
    scopes: storedScopes(view),
    include_sensitive: sensitive.include_sensitive ?? false,
    cursor: latest[0]?.id ?? null,
    created_at: now,
    updated_at: now,
  });
  return { ...present(await findEndpoint(db, companyId, Number(result.insertId))), secret };
}

export async function listEndpoints(db: Executor, companyId: number): Promise<Endpoint[]> {
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(live(companyId))
    .orderBy(asc(webhookEndpoints.id));
  return rows.map(present);
}

export async function getEndpoint(db: Executor, companyId: number, id: number): Promise<Endpoint> {
  return present(await findEndpoint(db, companyId, id));
}

/**
 * Changes an endpoint, which from then on delivers what the changing token may read: its
 * subscription, changed or not, must name only resources that token may read.
 */
export async function updateEndpoint(
  db: Executor,
  companyId: number,
  id: number,
  body: unknown,
  view: ReadView,
): Promise<Endpoint> {
  const stored = await findEndpoint(db, companyId, id);
  const values = await validate(body, true);
  refuseUnreadable(JSON.parse(values.events ?? stored.events) as string[], view);
  const sensitive = sensitiveSetting(values.include_sensitive, view);
  if (Object.keys(values).length > 0)
    await db
      .update(webhookEndpoints)
      .set({ ...values, ...sensitive, scopes: storedScopes(view), updated_at: new Date() })
      .where(live(companyId, id));
  return present(await findEndpoint(db, companyId, id));
}

export async function deleteEndpoint(
  db: Executor,
  companyId: number,
  id: number,
): Promise<{ id: number; deleted: true }> {
  await findEndpoint(db, companyId, id);
  const now = new Date();
  await db
    .update(webhookEndpoints)
    .set({ deleted_at: now, updated_at: now })
    .where(live(companyId, id));
  // Nothing more goes to a deleted endpoint.
  await db
    .update(webhookDeliveries)
    .set({ status: "cancelled", lease_owner: null, lease_until: null, updated_at: now })
    .where(
      and(
        eq(webhookDeliveries.company_id, companyId),
        eq(webhookDeliveries.endpoint_id, id),
        eq(webhookDeliveries.status, "pending"),
      ),
    );
  return { id, deleted: true };
}

/** The longest overlap a rotation may ask for: 7 days. */
export const MAX_OVERLAP_SECONDS = 7 * 24 * 3600;

export interface RotatedSecret {
  id: number;
  secret: string;
  /** Until when deliveries are signed with the old secret too; null when it stopped at once. */
  previous_secret_expires_at: string | null;
}

function overlapSeconds(body: unknown): number {
  if (body === null || body === undefined) return 0;
  const fail = (field: string, code: string, message: string) =>
    validationFailed([{ field, code, message }]);
  if (typeof body !== "object" || Array.isArray(body))
    throw fail(
      "body",
      "invalid_type",
      'The body must be a JSON object, e.g. {"expires_in": 3600}.',
    );
  const { expires_in: expiresIn, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0)
    throw validationFailed(
      unknown.map((name) => ({
        field: name,
        code: "unknown_field",
        message: `${name} is not a field of a rotation; the only one is expires_in.`,
      })),
    );
  if (expiresIn === undefined) return 0;
  if (
    typeof expiresIn !== "number" ||
    !Number.isInteger(expiresIn) ||
    expiresIn < 0 ||
    expiresIn > MAX_OVERLAP_SECONDS
  )
    throw fail(
      "expires_in",
      "invalid_value",
      `expires_in must be a whole number of seconds from 0 to ${MAX_OVERLAP_SECONDS} (7 days): ` +
        "how long the old secret still signs deliveries beside the new one.",
    );
  return expiresIn;
}

/**
 * A new secret; with `expires_in` the one it replaces keeps signing every delivery beside it until
 * then (`ERP-Signature: t=…,v1=<new>,v1=<old>`), so a receiver redeployed with the new secret
 * meanwhile never fails to verify one. Secrets replaced earlier keep signing until their own
 * expiry (webhooks/secrets.ts). The endpoint's row is locked: concurrent rotations each keep the
 * secret the other replaced.
 */
export async function rotateSecret(
  db: Executor,
  companyId: number,
  id: number,
  body: unknown,
): Promise<RotatedSecret> {
  const expiresIn = overlapSeconds(body);
  const [endpoint] = await db
    .select()
    .from(webhookEndpoints)
    .where(live(companyId, id))
    .limit(1)
    .for("update");
  if (!endpoint) throw notFound("webhook endpoint", id);
  const secret = newSecret();
  const now = new Date();
  const until = expiresIn > 0 ? new Date(now.getTime() + expiresIn * 1000) : null;
  const earlier = afterRotation(endpoint, until, now);
  if (earlier.length > MAX_EARLIER_SECRETS)
    throw validationFailed([
      {
        field: "expires_in",
        code: "invalid_value",
        message:
          `${MAX_EARLIER_SECRETS} replaced secrets still sign this endpoint's deliveries, the ` +
          `most it keeps: rotate with expires_in 0, or once the first of them expires ` +
          `(${earlier.map((one) => one.until).sort()[0]}).`,
      },
    ]);
  await db
    .update(webhookEndpoints)
    .set({
      secret,
      previous_secrets: earlier.length === 0 ? null : JSON.stringify(earlier),
      updated_at: now,
    })
    .where(live(companyId, id));
  return { id, secret, previous_secret_expires_at: until?.toISOString() ?? null };
}

/** The newest deliveries first, each with every attempt. */
export async function listDeliveries(
  db: Executor,
  companyId: number,
  endpointId: number,
  limit: number,
  offset: number,
): Promise<{ data: Delivery[]; total: number }> {
  await findEndpoint(db, companyId, endpointId);
  const where = and(
    eq(webhookDeliveries.company_id, companyId),
    eq(webhookDeliveries.endpoint_id, endpointId),
  );
  const [rows, totals] = await Promise.all([
    db
      .select()
      .from(webhookDeliveries)
      .where(where)
      .orderBy(desc(webhookDeliveries.id))
      .limit(limit)
      .offset(offset),
    db.select({ total: sql<number>`COUNT(*)` }).from(webhookDeliveries).where(where),
  ]);
  const ids = rows.map((row) => Number(row.id));
  const attempts =
    ids.length === 0
      ? []
      : await db
          .select()
          .from(webhookAttempts)
          .where(
            and(
              eq(webhookAttempts.company_id, companyId),
              inArray(webhookAttempts.delivery_id, ids),
            ),
          )
          .orderBy(asc(webhookAttempts.id));
  return {
    total: Number(totals[0]?.total ?? 0),
    data: rows.map((row) => ({
      id: Number(row.id),
      event_id: row.event_id,
      event_type: row.event_type,
      status: row.status as Delivery["status"],
      attempts: row.attempts,
      next_attempt_at: row.status === "pending" ? row.next_attempt_at.toISOString() : null,
      delivered_at: row.delivered_at?.toISOString() ?? null,
      created_at: row.created_at.toISOString(),
      attempt_log: attempts
        .filter((a) => Number(a.delivery_id) === Number(row.id))
        .map((a) => ({
          attempted_at: a.attempted_at.toISOString(),
          status_code: a.status_code ?? null,
          duration_ms: a.duration_ms,
          error: a.error ?? null,
        })),
    })),
  };
}
