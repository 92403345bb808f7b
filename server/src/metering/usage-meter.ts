// Usage metering: counted in memory per process, added to usage_counters about once a second,
// so no request waits on a metering write and every process's counts add up exactly. Admission
// counts each metered request (auth/admission.ts) and a replay is moved to the replays.
import { errorLabel } from "../db/errors.ts";
import { sql } from "drizzle-orm";
import { runStatement } from "../db/sql.ts";
import type { RequestCounter } from "../auth/admission.ts";
import type { Database } from "../db/client.ts";
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

export class UsageMeter implements RequestCounter {
  #pending = new Map<string, Counts>();
  #flushing: Promise<void> = Promise.resolve();
  #timer: ReturnType<typeof setInterval> | undefined;
  /** periodOf, remembered for the current month: every admitted request asks. */
  #month = { from: 0, until: 0, period: "" };

  constructor(
    private readonly db: Database,
    private readonly intervalMs = 1000,
  ) {}

  /** A request of the company, in the month it was received; a dry-run write also as a dry-run request. */
  count(companyId: number, receivedAt: number, dryRunWrite: boolean): void {
    const counts = this.#counts(companyId, receivedAt);
    counts.requests += 1;
    if (dryRunWrite) counts.dryRunRequests += 1;
  }

  /**
   * A counted request was a replay: it counts only as a replay. (A replay is never a dry-run: a
   * dry-run stores no outcome to replay.) When its count was written already, `requests` goes
   * below zero here and the next write takes it back from the stored row.
   */
  countAsReplay(companyId: number, receivedAt: number): void {
    const counts = this.#counts(companyId, receivedAt);
    counts.requests -= 1;
    counts.replays += 1;
  }

  #counts(companyId: number, receivedAt: number): Counts {
    const period = this.#periodOf(receivedAt);
    const slot = `${companyId}/${period}`;
    let counts = this.#pending.get(slot);
    if (!counts) {
      counts = { companyId, period, requests: 0, dryRunRequests: 0, replays: 0 };
      this.#pending.set(slot, counts);
    }
    return counts;
  }

  #periodOf(at: number): string {
    const month = this.#month;
    if (at >= month.from && at < month.until) return month.period;
    const start = new Date(at);
    const from = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), 1);
    this.#month = {
      from,
      until: Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1),
      period: periodOf(at),
    };
    return this.#month.period;
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
    await this.flush();
  }

  async #write(): Promise<void> {
    const batch = [...this.#pending.values()];
    this.#pending = new Map();
    for (const counts of batch) {
      try {
        // A negative `requests` (replays of requests already written) only ever meets a stored row.
        await runStatement(
          this.db,
          sql`
          INSERT INTO usage_counters (company_id, period, requests, dry_run_requests, replays)
          VALUES (${counts.companyId}, ${counts.period}, ${Math.max(0, counts.requests)},
            ${counts.dryRunRequests}, ${counts.replays})
          ON DUPLICATE KEY UPDATE requests = requests + ${counts.requests},
            dry_run_requests = dry_run_requests + ${counts.dryRunRequests}, replays = replays + ${counts.replays}`,
        );
      } catch (error) {
        this.#restore(counts);
        log.throttled(
          "warn",
          "usage-flush",
          "usage counters not written; kept for the next flush",
          { company_id: counts.companyId, error: errorLabel(error) },
        );
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
