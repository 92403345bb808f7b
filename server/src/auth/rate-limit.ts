// Per-company request limits in fixed one-minute windows, shared by every server process without
// a shared write per request: each process counts what it admits in memory, writes its own
// count about once a second (its own row, so processes and cluster nodes never contend for one),
// and reads the others' sum. On one process the limit is exact; across processes a window may
// admit about one second of extra traffic. Refused requests and replays do not count
// (docs/limits.md): they give their unit back; but a refused request costs the server as much as
// any other (a 500-item batch refused whole), so a company's refused requests are given back
// only up to its limit in a window, and a stream of them meets 429 too.
import { errorLabel } from "../db/errors.ts";
import { sql } from "drizzle-orm";
import { runStatement, selectRows } from "../db/sql.ts";
import { envMilliseconds } from "../base/config.ts";
import type { Database, Executor } from "../db/client.ts";
import type { GiveBackReason } from "../http/give-back.ts";
import { rateLimited } from "../refusals/catalogue.ts";
import { log } from "../base/log.ts";
import type { Company } from "./company.ts";

export const WINDOW_MS = 60_000;

interface CompanyWindow {
  windowStart: number;
  /** Admitted by this process in the window. */
  local: number;
  /** What this process last wrote to its row. */
  written: number;
  /** Admitted by the other processes, as of the last read. */
  others: number;
  /** Refused requests this process gave back to the window: at most the limit. */
  refunded: number;
  /** The first read of the others' counts, which every admission of the window waits for. */
  othersRead: Promise<void> | undefined;
}

export type ResponseHeaders = Record<string, string | number>;

/** How an admitted request gives its unit back (refused or replayed). */
type GiveBack = (reason: GiveBackReason) => void;

export class RateLimiter {
  readonly processId = crypto.randomUUID();
  readonly #windows = new Map<number, CompanyWindow>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #syncing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Database,
    private readonly syncMs = envMilliseconds("ERP_RATE_SYNC_MS", 1_000),
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Admits one request of the company or throws 429 rate_limited with Retry-After; sets
   * RateLimit-Limit, -Remaining and -Reset (seconds until the window ends) either way. Returns how
   * the admitted request gives its unit back (refused or replayed: it does not count), which also
   * sets RateLimit-Remaining to the count without it; nothing for an unlimited plan. A refused
   * request is given back only while the window's refunds stay within the limit.
   */
  admit(
    company: Company,
    headers: ResponseHeaders,
  ): GiveBack | undefined | Promise<GiveBack | undefined> {
    const limit = company.limits.requestsPerMinute;
    // An unlimited plan is admitted at once, with no promise.
    if (limit === null) return undefined;
    return this.#admitLimited(company, limit, headers);
  }

  async #admitLimited(
    company: Company,
    limit: number,
    headers: ResponseHeaders,
  ): Promise<GiveBack | undefined> {
    const at = this.now();
    const window = this.#window(company.id, at);
    window.othersRead ??= this.#readOthers([company.id], window.windowStart).catch(
      (error: unknown) => {
        // Not remembered: the next request of the window asks again.
        window.othersRead = undefined;
        throw error;
      },
    );
    await window.othersRead;
    const used = window.local + window.others;
    const reset = String(Math.max(1, Math.ceil((window.windowStart + WINDOW_MS - at) / 1000)));
    if (used >= limit) {
      const limits = {
        "ratelimit-limit": String(limit),
        "ratelimit-remaining": "0",
        "ratelimit-reset": reset,
      };
      Object.assign(headers, limits);
      throw rateLimited(company.plan, limit, reset, limits);
    }
    window.local += 1;
    Object.assign(headers, {
      "ratelimit-limit": String(limit),
      "ratelimit-remaining": String(limit - used - 1),
      "ratelimit-reset": reset,
    });
    return (reason) => {
      // A window that ended meanwhile is no longer counted: nothing to give back to it.
      if (window.local === 0) return;
      if (reason === "refused") {
        if (window.refunded >= limit) return;
        window.refunded += 1;
      }
      window.local -= 1;
      headers["ratelimit-remaining"] = String(Math.max(0, limit - window.local - window.others));
    };
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.sync(), this.syncMs);
    this.#timer.unref?.();
  }

  /** Stops syncing after writing this process's counts (graceful shutdown). */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.sync();
  }

  /** Writes this process's counts and reads the others'; runs never overlap. */
  sync(): Promise<void> {
    this.#syncing = this.#syncing
      .then(() => this.#sync())
      .catch((error: unknown) => {
        log.throttled("warn", "rate-sync", "rate-limit counts not shared this round; retrying", {
          error: errorLabel(error),
        });
      });
    return this.#syncing;
  }

  #window(companyId: number, at: number): CompanyWindow {
    const windowStart = Math.floor(at / WINDOW_MS) * WINDOW_MS;
    let window = this.#windows.get(companyId);
    if (!window || window.windowStart !== windowStart) {
      window = {
        windowStart,
        local: 0,
        written: 0,
        others: 0,
        refunded: 0,
        othersRead: undefined,
      };
      this.#windows.set(companyId, window);
    }
    return window;
  }

  async #sync(): Promise<void> {
    const current = Math.floor(this.now() / WINDOW_MS) * WINDOW_MS;
    for (const [companyId, window] of this.#windows)
      if (window.windowStart < current) this.#windows.delete(companyId);
    const changed = [...this.#windows].filter(([, window]) => window.local !== window.written);
    if (changed.length > 0) {
      const rows = changed.map(
        ([companyId, window]) =>
          sql`(${companyId}, ${window.windowStart}, ${this.processId}, ${window.local})`,
      );
      await runStatement(
        this.db,
        sql`INSERT INTO rate_counts (company_id, window_start, process_id, hits)
        VALUES ${sql.join(rows, sql`, `)}
        ON DUPLICATE KEY UPDATE hits = VALUES(hits)`,
      );
      for (const [, window] of changed) window.written = window.local;
    }
    if (this.#windows.size > 0) await this.#readOthers([...this.#windows.keys()], current);
  }

  async #readOthers(companyIds: number[], windowStart: number): Promise<void> {
    const rows = await selectRows<{ company_id: number; hits: number }>(
      this.db,
      sql`
      SELECT company_id, SUM(hits) AS hits FROM rate_counts
      WHERE window_start = ${windowStart} AND process_id <> ${this.processId} AND company_id IN (${sql.join(
        companyIds.map((id) => sql`${id}`),
        sql`, `,
      )})
      GROUP BY company_id`,
    );
    const sums = new Map(rows.map((row) => [Number(row.company_id), Number(row.hits)]));
    for (const companyId of companyIds) {
      const window = this.#windows.get(companyId);
      if (window?.windowStart === windowStart) window.others = sums.get(companyId) ?? 0;
    }
  }
}

/** Drops counts of windows that can no longer count (every process is past them). */
export async function purgeRateCounts(db: Executor, at = Date.now()): Promise<void> {
  await runStatement(db, sql`DELETE FROM rate_counts WHERE window_start < ${at - 2 * WINDOW_MS}`);
}
