// Usage metering: counted in memory per process, added to usage_counters about once a second,
// so no request waits on a metering write and every process's counts add up exactly.
import { errorLabel } from "../db/errors.ts";
import { Elysia } from "elysia";
import { sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { contextOf, WRITE_METHODS, type RequestContext } from "../http/request-context.ts";
import { log } from "../base/log.ts";

interface Counts {
  companyId: number;
  period: string;
  requests: number;
  dryRunRequests: number;
  replays: number;
}

/** The calendar month (UTC) a moment falls in, as `YYYY-MM`. */
export const periodOf = (at: number): string => new Date(at).toISOString().slice(0, 7);

export class UsageMeter {
  #pending = new Map<string, Counts>();
  #flushing: Promise<void> = Promise.resolve();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly db: Database, private readonly intervalMs = 1000) {}

  /**
   * Counts a finished request that admission marked metered: a replay counts only as a replay;
   * anything else as a request, and a dry-run write also as a dry-run request.
   */
  record(ctx: RequestContext, method: string): void {
    if (!ctx.metered || ctx.companyId === undefined) return;
    const period = periodOf(ctx.receivedAt);
    const slot = `${ctx.companyId}/${period}`;
    let counts = this.#pending.get(slot);
    if (!counts) this.#pending.set(slot, counts = { companyId: ctx.companyId, period, requests: 0, dryRunRequests: 0, replays: 0 });
    if (ctx.replayed) counts.replays += 1;
    else {
      counts.requests += 1;
      if (ctx.dryRun && WRITE_METHODS.has(method)) counts.dryRunRequests += 1;
    }
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.flush(), this.intervalMs);
    this.#timer.unref?.();
  }

  /** Writes what was counted so far; flushes never overlap, and counts that fail to write stay for the next one. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#write());
    return this.#flushing;
  }

  /** Stops the timer and writes the rest; for shutdown, once no request is in flight. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    // After-response hooks run in a setImmediate after their response; let the last ones count.
    await new Promise((resolve) => setImmediate(resolve));
    await this.flush();
  }

  async #write(): Promise<void> {
    const batch = [...this.#pending.values()];
    this.#pending = new Map();
    for (const counts of batch) {
      try {
        await this.db.execute(sql`
          INSERT INTO usage_counters (company_id, period, requests, dry_run_requests, replays)
          VALUES (${counts.companyId}, ${counts.period}, ${counts.requests}, ${counts.dryRunRequests}, ${counts.replays})
          ON DUPLICATE KEY UPDATE requests = requests + ${counts.requests},
            dry_run_requests = dry_run_requests + ${counts.dryRunRequests}, replays = replays + ${counts.replays}`);
      } catch (error) {
        this.#restore(counts);
        log.throttled("warn", "usage-flush", "usage counters not written; kept for the next flush", { company_id: counts.companyId, error: errorLabel(error) });
      }
    }
  }

  #restore(counts: Counts): void {
    const slot = `${counts.companyId}/${counts.period}`;
    const current = this.#pending.get(slot);
    if (!current) this.#pending.set(slot, counts);
    else {
      current.requests += counts.requests;
      current.dryRunRequests += counts.dryRunRequests;
      current.replays += counts.replays;
    }
  }
}

/** Counts every finished request with the meter; admission decides which ones are metered. */
export const meterRequests = (meter: UsageMeter) => new Elysia({ name: "metering" })
  .onAfterResponse({ as: "global" }, ({ request }) => meter.record(contextOf(request), request.method));
