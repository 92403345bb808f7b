// Delivers webhooks from every server process. Every poll it (1) turns new events into deliveries
// for each enabled endpoint, advancing the endpoint's cursor with a compare-and-set, and (2) finds
// the endpoints with due deliveries. A pump then leases due deliveries endpoint by endpoint, in
// turn, and starts their sends without waiting for them: each endpoint has a few slots and each
// company a few more in this process, so a slow or dead receiver holds only its own slots while
// the others' deliveries keep flowing; a finished send frees its slot and wakes the pump.
// A lease is a row value, not a lock, so it holds across cluster nodes; a process that dies lets
// it run out and another sends again (at least once). Failures are retried with exponential
// backoff for 24 h, then marked failed.
import { randomUUID } from "node:crypto";
import { and, asc, eq, inArray, isNull, or, sql } from "drizzle-orm";
import { runStatement, selectRows } from "../db/sql.ts";
import { envMilliseconds } from "../base/config.ts";
import { log } from "../base/log.ts";
import type { Database } from "../db/client.ts";
import { errorLabel } from "../db/errors.ts";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "../db/schema.ts";
import { readFeed } from "../events/event-feed.ts";
import { EVENT_RESOURCES } from "../events/event-types.ts";
import { deliveredBy } from "./endpoints.ts";
import { attemptDelivery } from "./attempt.ts";
import { signingSecrets } from "./secrets.ts";
const FAN_OUT_PAGE = 200;
/** Sends in flight at once in one process: per endpoint, per company, in all. */
const ENDPOINT_SLOTS = 8;
const COMPANY_SLOTS = 16;
const PROCESS_SLOTS = 256;
/** At least 8 attempts, and never past the retry window. */
const MIN_ATTEMPTS = 8;

export interface DispatcherOptions {
  pollMs: number;
  leaseMs: number;
  /** The first retry's delay; each next one doubles (with jitter), capped at an hour. */
  backoffMs: number;
  retryWindowMs: number;
}

export const dispatcherOptionsFromEnv = (): DispatcherOptions => ({
  pollMs: envMilliseconds("ERP_WEBHOOK_POLL_MS", 1_000),
  leaseMs: envMilliseconds("ERP_WEBHOOK_LEASE_MS", 30_000),
  backoffMs: envMilliseconds("ERP_WEBHOOK_BACKOFF_MS", 30_000),
  retryWindowMs: envMilliseconds("ERP_WEBHOOK_RETRY_WINDOW_MS", 24 * 3_600_000),
});

interface EndpointRef {
  companyId: number;
  endpointId: number;
}

type Delivery = typeof webhookDeliveries.$inferSelect;

interface Leased {
  delivery: Delivery;
  url: string;
  /** Every secret that signs it now (more than one during a rotation's overlap). */
  secrets: string[];
  /** The lease this process holds on the delivery. */
  claim: string;
}

const keyOf = (endpoint: EndpointRef): string => `${endpoint.companyId}/${endpoint.endpointId}`;

/** Counts sends in flight; a count back at zero leaves the map. */
function adjust<K>(counts: Map<K, number>, key: K, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next === 0) counts.delete(key);
  else counts.set(key, next);
}

export class WebhookDispatcher {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #polling: Promise<void> = Promise.resolve();
  #stopped = false;
  /** Endpoints that may have due deliveries, in the order the pump serves them next. */
  readonly #due = new Map<string, EndpointRef>();
  readonly #endpointSends = new Map<string, number>();
  readonly #companySends = new Map<number, number>();
  readonly #sends = new Set<Promise<void>>();
  #pumping: Promise<void> | undefined;
  #pumpAgain = false;

  constructor(
    private readonly db: Database,
    private readonly options: DispatcherOptions = dispatcherOptionsFromEnv(),
  ) {}

  start(): void {
    const tick = (): void => {
      let again = false;
      this.#polling = this.#poll()
        .then((more) => {
          again = more;
        })
        .catch((error: unknown) =>
          log.throttled("warn", "webhooks", "webhook poll failed; retrying", {
            error: errorLabel(error),
          }),
        )
        .finally(() => {
          // A fan-out that filled a page has more events waiting: read on at once.
          if (!this.#stopped) this.#timer = setTimeout(tick, again ? 0 : this.options.pollMs);
        });
    };
    this.#timer = setTimeout(tick, this.options.pollMs);
  }

  /** Stops polling and lets the sends in flight finish (each is bounded by its timeout). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#polling;
    await this.#pumping;
    await Promise.allSettled([...this.#sends]);
  }

  /** One poll: new events into deliveries, due endpoints found, the pump woken. True when more events wait. */
  async #poll(): Promise<boolean> {
    const more = await this.#fanOut();
    for (const endpoint of await this.#dueEndpoints()) this.#due.set(keyOf(endpoint), endpoint);
    this.#wake();
    return more;
  }

  /** New events of each enabled endpoint's company become its deliveries. True when a page was full. */
  async #fanOut(): Promise<boolean> {
    const endpoints = await this.db
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.enabled, true), isNull(webhookEndpoints.deleted_at)));
    let more = false;
    for (const endpoint of endpoints) {
      const page = await readFeed(this.db, {
        companyId: endpoint.company_id,
        after: endpoint.cursor ?? undefined,
        limit: FAN_OUT_PAGE,
        resources: EVENT_RESOURCES,
      });
      if (page.events.length === 0) continue;
      if (page.events.length === FAN_OUT_PAGE) more = true;
      // The cursor passes every event; only those the endpoint delivers become deliveries.
      const deliveries = deliveredBy(endpoint);
      const wanted = page.events.filter(deliveries.wants);
      const payloads = await deliveries.payloads(wanted, this.db);
      const now = new Date();
      const inserted = await this.db.transaction(async (tx) => {
        // Compare-and-set: only the process that moves the cursor from where it read it inserts,
        // and only while the endpoint is as read: payloads made under settings changed meanwhile
        // (a token without `sensitive` cleared include_sensitive, the endpoint was deleted) are
        // dropped and made again from the new ones on the next poll.
        const [moved] = await tx
          .update(webhookEndpoints)
          .set({ cursor: page.nextCursor })
          .where(
            and(
              eq(webhookEndpoints.company_id, endpoint.company_id),
              eq(webhookEndpoints.id, endpoint.id),
              endpoint.cursor === null
                ? isNull(webhookEndpoints.cursor)
                : eq(webhookEndpoints.cursor, endpoint.cursor),
              eq(webhookEndpoints.events, endpoint.events),
              eq(webhookEndpoints.scopes, endpoint.scopes),
              eq(webhookEndpoints.include_sensitive, endpoint.include_sensitive),
              eq(webhookEndpoints.enabled, true),
              isNull(webhookEndpoints.deleted_at),
            ),
          );
        if (moved.affectedRows !== 1 || wanted.length === 0) return false;
        await tx
          .insert(webhookDeliveries)
          .ignore()
          .values(
            wanted.map((event, index) => ({
              company_id: endpoint.company_id,
              endpoint_id: Number(endpoint.id),
              event_id: event.id,
              event_type: event.type,
              payload: payloads[index]!,
              status: "pending",
              attempts: 0,
              next_attempt_at: now,
              created_at: now,
              updated_at: now,
            })),
          );
        return true;
      });
      if (inserted) {
        const ref = { companyId: endpoint.company_id, endpointId: Number(endpoint.id) };
        this.#due.set(keyOf(ref), ref);
        this.#wake();
      }
    }
    return more;
  }

  /** Enabled endpoints with a due delivery no process holds: one index probe per endpoint (the hint keeps it one). */
  async #dueEndpoints(): Promise<EndpointRef[]> {
    const rows = await selectRows<{ company_id: number; id: number }>(
      this.db,
      sql`
      SELECT e.company_id, e.id FROM webhook_endpoints e
      WHERE e.enabled = TRUE AND e.deleted_at IS NULL AND EXISTS (
        SELECT 1 FROM webhook_deliveries d FORCE INDEX (webhook_deliveries_due)
        WHERE d.status = 'pending' AND d.company_id = e.company_id AND d.endpoint_id = e.id
          AND d.next_attempt_at <= NOW(3) AND (d.lease_until IS NULL OR d.lease_until < NOW(3)))`,
    );
    return rows.map((row) => ({ companyId: Number(row.company_id), endpointId: Number(row.id) }));
  }

  /** Runs the pump now, or once more after the pass in progress. */
  #wake(): void {
    if (this.#stopped) return;
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    this.#pumping = this.#pump()
      .catch((error: unknown) =>
        log.throttled("warn", "webhooks", "webhook lease failed; retrying", {
          error: errorLabel(error),
        }),
      )
      .finally(() => {
        this.#pumping = undefined;
        if (this.#pumpAgain) {
          this.#pumpAgain = false;
          this.#wake();
        }
      });
  }

  /** One pass over the due endpoints, in turn: each gets as many deliveries as it has free slots. */
  async #pump(): Promise<void> {
    for (const [key, endpoint] of [...this.#due]) {
      if (this.#stopped || this.#sends.size >= PROCESS_SLOTS) return;
      const free = Math.min(
        ENDPOINT_SLOTS - (this.#endpointSends.get(key) ?? 0),
        COMPANY_SLOTS - (this.#companySends.get(endpoint.companyId) ?? 0),
        PROCESS_SLOTS - this.#sends.size,
      );
      // Leases come in batches: a busy endpoint waits until half its slots are free (an idle one
      // never waits). Until then it stays due, and each of its finished sends wakes the pump.
      if (free <= 0 || (this.#endpointSends.has(key) && free < ENDPOINT_SLOTS / 2)) continue;
      const leased = await this.#lease(endpoint, free);
      // To the back of the line; an endpoint that had fewer due deliveries than slots leaves it.
      this.#due.delete(key);
      if (leased.length === free) this.#due.set(key, endpoint);
      for (const item of leased) this.#startSend(key, endpoint, item);
    }
  }

  /**
   * Up to `limit` due deliveries of one endpoint, oldest first, leased to this process. Read first
   * (no locks), then claimed by primary key with the conditions checked again: the claim never
   * walks the due index that recording an attempt changes, so the two cannot deadlock.
   */
  async #lease(endpoint: EndpointRef, limit: number): Promise<Leased[]> {
    const candidates = await this.db
      .select({
        delivery: webhookDeliveries,
        url: webhookEndpoints.url,
        secret: webhookEndpoints.secret,
        previous_secrets: webhookEndpoints.previous_secrets,
      })
      .from(webhookDeliveries)
      .innerJoin(
        webhookEndpoints,
        and(
          eq(webhookEndpoints.company_id, webhookDeliveries.company_id),
          eq(webhookEndpoints.id, webhookDeliveries.endpoint_id),
          eq(webhookEndpoints.enabled, true),
          isNull(webhookEndpoints.deleted_at),
        ),
      )
      .where(
        and(
          eq(webhookDeliveries.status, "pending"),
          eq(webhookDeliveries.company_id, endpoint.companyId),
          eq(webhookDeliveries.endpoint_id, endpoint.endpointId),
          sql`${webhookDeliveries.next_attempt_at} <= NOW(3)`,
          or(isNull(webhookDeliveries.lease_until), sql`${webhookDeliveries.lease_until} < NOW(3)`),
        ),
      )
      .orderBy(asc(webhookDeliveries.next_attempt_at))
      .limit(limit);
    if (candidates.length === 0) return [];
    const claim = randomUUID();
    const ids = candidates.map((candidate) => candidate.delivery.id);
    const claimed = await runStatement(
      this.db,
      sql`
      UPDATE webhook_deliveries
        SET lease_owner = ${claim}, lease_until = NOW(3) + INTERVAL ${this.options.leaseMs * 1000} MICROSECOND
      WHERE company_id = ${endpoint.companyId} AND id IN (${sql.join(
        ids.map((id) => sql`${id}`),
        sql`, `,
      )})
        AND status = 'pending' AND (lease_until IS NULL OR lease_until < NOW(3))`,
    );
    let won = candidates;
    // Another process claimed some in between: keep the ones that carry this claim.
    if (claimed.affectedRows < candidates.length) {
      const mine = await this.db
        .select({ id: webhookDeliveries.id })
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.company_id, endpoint.companyId),
            inArray(webhookDeliveries.id, ids),
            eq(webhookDeliveries.lease_owner, claim),
          ),
        );
      const ours = new Set(mine.map((row) => row.id));
      won = candidates.filter((candidate) => ours.has(candidate.delivery.id));
    }
    return won.map(({ delivery, url, ...secrets }) => ({
      delivery,
      url,
      secrets: signingSecrets(secrets),
      claim,
    }));
  }

  #startSend(key: string, endpoint: EndpointRef, item: Leased): void {
    adjust(this.#endpointSends, key, 1);
    adjust(this.#companySends, endpoint.companyId, 1);
    const send: Promise<void> = this.#attempt(item)
      .catch((error: unknown) =>
        log.throttled(
          "warn",
          "webhooks",
          "webhook attempt not recorded; its lease runs out and it is sent again",
          { error: errorLabel(error) },
        ),
      )
      .finally(() => {
        adjust(this.#endpointSends, key, -1);
        adjust(this.#companySends, endpoint.companyId, -1);
        this.#sends.delete(send);
        this.#wake();
      });
    this.#sends.add(send);
  }

  async #attempt({ delivery, url, secrets, claim }: Leased): Promise<void> {
    const {
      delivered,
      statusCode,
      error,
      durationMs,
      attemptedAt: now,
    } = await attemptDelivery(url, delivery.event_id, delivery.payload, secrets);
    const attempts = delivery.attempts + 1;
    const expired =
      now.getTime() - delivery.created_at.getTime() >= this.options.retryWindowMs &&
      attempts >= MIN_ATTEMPTS;
    const backoff =
      Math.min(3_600_000, this.options.backoffMs * 2 ** (attempts - 1)) *
      (0.75 + Math.random() * 0.5);
    await this.db.transaction(async (tx) => {
      await tx.insert(webhookAttempts).values({
        company_id: delivery.company_id,
        delivery_id: Number(delivery.id),
        status_code: statusCode,
        error,
        duration_ms: durationMs,
        attempted_at: now,
      });
      // Only while this lease still holds: a late answer never overwrites another process's attempt.
      await tx
        .update(webhookDeliveries)
        .set({
          attempts,
          status: delivered ? "delivered" : expired ? "failed" : "pending",
          delivered_at: delivered ? now : null,
          next_attempt_at: new Date(now.getTime() + backoff),
          lease_owner: null,
          lease_until: null,
          updated_at: now,
        })
        .where(
          and(
            eq(webhookDeliveries.company_id, delivery.company_id),
            eq(webhookDeliveries.id, delivery.id),
            eq(webhookDeliveries.lease_owner, claim),
          ),
        );
    });
  }
}
