// Delivers webhooks from every server process. Each round it (1) turns new events into deliveries
// for each enabled endpoint, advancing the endpoint's cursor with a compare-and-set, and (2) leases
// due deliveries with one conditional UPDATE and sends them. A lease is a row value, not a lock,
// so it holds across cluster nodes; a process that dies lets it run out and another sends again
// (at least once). Failures are retried with exponential backoff for 24 h, then marked failed.
import { randomUUID } from "node:crypto";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { ResultSetHeader } from "mysql2";
import { envMilliseconds } from "../base/config.ts";
import { log } from "../base/log.ts";
import type { Database } from "../db/client.ts";
import { errorLabel } from "../db/errors.ts";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "../db/schema.ts";
import { readFeed } from "../events/event-feed.ts";
import { RESOURCES, SUB_RESOURCES } from "../resources/registry.ts";
import { subscribes } from "./endpoints.ts";
import { signatureHeader } from "./signature.ts";
import { refusedTarget } from "./targets.ts";

const ALL_RESOURCES = [...RESOURCES, ...SUB_RESOURCES].map((def) => def.name);
const SEND_TIMEOUT_MS = 10_000;
const FAN_OUT_PAGE = 200;
const SEND_BATCH = 20;
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

export class WebhookDispatcher {
  readonly #owner = randomUUID();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(private readonly db: Database, private readonly options: DispatcherOptions = dispatcherOptionsFromEnv()) {}

  start(): void {
    const tick = (): void => {
      this.#running = this.round()
        .catch((error: unknown) => log.throttled("warn", "webhooks", "webhook round failed; retrying", { error: errorLabel(error) }))
        .finally(() => {
          if (!this.#stopped) this.#timer = setTimeout(tick, this.options.pollMs);
        });
    };
    this.#timer = setTimeout(tick, this.options.pollMs);
  }

  /** Lets the round in flight finish (its sends are bounded by their timeout). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  async round(): Promise<void> {
    await this.fanOut();
    await this.sendDue();
  }

  /** New events of each enabled endpoint's company become its deliveries. */
  async fanOut(): Promise<void> {
    const endpoints = await this.db.select().from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.enabled, true), isNull(webhookEndpoints.deleted_at)));
    for (const endpoint of endpoints) {
      const page = await readFeed(this.db, { companyId: endpoint.company_id, after: endpoint.cursor ?? undefined, limit: FAN_OUT_PAGE, resources: ALL_RESOURCES });
      if (page.events.length === 0) continue;
      const patterns = JSON.parse(endpoint.events) as string[];
      const wanted = page.events.filter((event) => subscribes(patterns, event.type));
      const now = new Date();
      await this.db.transaction(async (tx) => {
        // Compare-and-set: only the process that moves the cursor from where it read it inserts.
        const [moved] = await tx.update(webhookEndpoints).set({ cursor: page.nextCursor })
          .where(and(eq(webhookEndpoints.company_id, endpoint.company_id), eq(webhookEndpoints.id, endpoint.id),
            endpoint.cursor === null ? isNull(webhookEndpoints.cursor) : eq(webhookEndpoints.cursor, endpoint.cursor))) as unknown as [ResultSetHeader];
        if (moved.affectedRows !== 1 || wanted.length === 0) return;
        await tx.insert(webhookDeliveries).ignore().values(wanted.map((event) => ({
          company_id: endpoint.company_id, endpoint_id: Number(endpoint.id), event_id: event.id, event_type: event.type,
          payload: JSON.stringify(event), status: "pending", attempts: 0, next_attempt_at: now, created_at: now, updated_at: now,
        })));
      });
    }
  }

  /** Leases due deliveries and sends them, a few at once. */
  async sendDue(): Promise<void> {
    const lease = `${this.#owner}`;
    const [claimed] = await this.db.execute(sql`
      UPDATE webhook_deliveries SET lease_owner = ${lease}, lease_until = NOW(3) + INTERVAL ${this.options.leaseMs * 1000} MICROSECOND
      WHERE status = 'pending' AND next_attempt_at <= NOW(3) AND (lease_until IS NULL OR lease_until < NOW(3))
      ORDER BY next_attempt_at LIMIT ${SEND_BATCH}`) as unknown as [ResultSetHeader];
    if (claimed.affectedRows === 0) return;
    const due = await this.db.select({ delivery: webhookDeliveries, url: webhookEndpoints.url, secret: webhookEndpoints.secret })
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, and(eq(webhookEndpoints.company_id, webhookDeliveries.company_id), eq(webhookEndpoints.id, webhookDeliveries.endpoint_id)))
      .where(and(eq(webhookDeliveries.lease_owner, lease), eq(webhookDeliveries.status, "pending"), sql`${webhookDeliveries.lease_until} > NOW(3)`));
    await Promise.all(due.map((item) => this.#attempt(item.delivery, item.url, item.secret)));
  }

  async #attempt(delivery: typeof webhookDeliveries.$inferSelect, url: string, secret: string): Promise<void> {
    const started = performance.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    const refused = await refusedTarget(url);
    if (refused) error = `target refused: url ${refused}`;
    else {
      try {
        const response = await fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "user-agent": "construction-erp-webhooks/1",
            "erp-event-id": delivery.event_id,
            "erp-signature": signatureHeader(secret, delivery.payload),
          },
          body: delivery.payload,
          redirect: "manual",
          signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
        });
        statusCode = response.status;
        await response.body?.cancel().catch(() => {});
      } catch (cause) {
        error = cause instanceof Error ? `${cause.name}: ${cause.message}`.slice(0, 500) : "request failed";
      }
    }
    const now = new Date();
    const durationMs = Math.round(performance.now() - started);
    const delivered = statusCode !== null && statusCode >= 200 && statusCode < 300;
    const attempts = delivery.attempts + 1;
    const expired = now.getTime() - delivery.created_at.getTime() >= this.options.retryWindowMs && attempts >= MIN_ATTEMPTS;
    const backoff = Math.min(3_600_000, this.options.backoffMs * 2 ** (attempts - 1)) * (0.75 + Math.random() * 0.5);
    await this.db.transaction(async (tx) => {
      await tx.insert(webhookAttempts).values({
        company_id: delivery.company_id, delivery_id: Number(delivery.id), status_code: statusCode, error, duration_ms: durationMs, attempted_at: now,
      });
      // Only while this process still holds the lease: a late answer never overwrites another's.
      await tx.update(webhookDeliveries).set({
        attempts,
        status: delivered ? "delivered" : expired ? "failed" : "pending",
        delivered_at: delivered ? now : null,
        next_attempt_at: new Date(now.getTime() + backoff),
        lease_owner: null,
        lease_until: null,
        updated_at: now,
      }).where(and(eq(webhookDeliveries.company_id, delivery.company_id), eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.lease_owner, this.#owner)));
    });
  }
}
