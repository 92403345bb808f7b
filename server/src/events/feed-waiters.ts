// Long-polls of the change feed wait here, in memory, for the next event they want: no waiting
// request holds a database connection or budget, and an event a waiter's filter (type, resource)
// does not want leaves it asleep. One loop per process reads, in one query every POLL_MS, the types
// of the events committed since its last read for every company that has waiters, so a commit on
// any process or cluster node releases the waiters it concerns within that; a write this process
// commits releases them at once. A released request then reads the feed like any other.
import { log } from "../base/log.ts";
import type { Database } from "../db/client.ts";
import { withDatabaseBudget } from "../db/deadline.ts";
import { errorLabel } from "../db/errors.ts";
import type { EventKind } from "./event-log.ts";
import { newestSequences, newEventTypes, type NewEvents } from "./newest-sequences.ts";

/** How often the loop reads what committed while anyone waits. */
const POLL_MS = 200;
/** The database budget of one such read: a slow one only delays the waiters to the next round. */
const POLL_BUDGET_MS = 2_000;
/**
 * The most events of one company one read sums up. A company further behind (a waiter's old
 * cursor, a long bulk import) skips to its newest event and releases its waiters, which read the
 * feed themselves once.
 */
const SPAN = 10_000;

/** Whether a waiter wants events of this type and resource (its feed's filters). */
export type EventFilter = (kind: EventKind) => boolean;

interface Waiter {
  /** Every event up to this number is known not to be wanted: the waiter waits for a newer one. */
  after: number;
  wants: EventFilter;
  release(seen: number | undefined): void;
}

/** What the loop knows of one company's events, while it has waiters. */
interface CompanyFeed {
  /** The events numbered in (from, through] are summed up in `newest`. */
  from: number;
  through: number;
  /** Event type → its resource and the number of its newest event in (from, through]. */
  newest: Map<string, { resource: string; seq: number }>;
  waiters: Set<Waiter>;
}

export class FeedWaiters {
  readonly #db: Database;
  readonly #feeds = new Map<number, CompanyFeed>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(db: Database) {
    this.#db = db;
  }

  /**
   * Resolves once the company may have an event after sequence number `after` that `wants`
   * accepts, with the sequence number up to which the waiter has been told of every event (pass it
   * as `after` to wait again when the feed still shows nothing new to this reader); resolves
   * undefined after `timeoutMs`, when `signal` aborts (the client left) or at shutdown.
   */
  wait(
    companyId: number,
    after: number,
    wants: EventFilter,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<number | undefined> {
    if (this.#closed || signal?.aborted || timeoutMs <= 0) return Promise.resolve(undefined);
    let feed = this.#feeds.get(companyId);
    if (feed) {
      // The loop read events after this cursor before the waiter came: it cannot tell what they
      // were (too far back), or one of them is wanted.
      if (after < feed.from || wanted(feed, after, wants)) return Promise.resolve(feed.through);
      after = Math.max(after, feed.through);
    } else {
      feed = { from: after, through: after, newest: new Map(), waiters: new Set() };
      this.#feeds.set(companyId, feed);
    }
    const waiters = feed.waiters;
    return new Promise((resolve) => {
      const onAbort = (): void => waiter.release(undefined);
      const timer = setTimeout(onAbort, timeoutMs);
      const waiter: Waiter = {
        after,
        wants,
        release: (seen) => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          waiters.delete(waiter);
          if (waiters.size === 0 && this.#feeds.get(companyId)?.waiters === waiters)
            this.#feeds.delete(companyId);
          resolve(seen);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      waiters.add(waiter);
      this.#schedule();
    });
  }

  /**
   * This process committed a write with events of these kinds: the company's waiters that want one
   * read the feed now instead of at the next round. They are told the newest number the loop has
   * read (the commit's own number may belong to a transaction that was retried); the loop still
   * sums the events up when it reads them, so a waiter that finds nothing waits again.
   */
  committed(companyId: number, kinds: readonly EventKind[]): void {
    const feed = this.#feeds.get(companyId);
    if (!feed) return;
    for (const waiter of [...feed.waiters])
      if (kinds.some(waiter.wants)) waiter.release(Math.max(waiter.after, feed.through));
  }

  /** Shutdown: every waiter is answered now, and later waits return at once. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const feed of [...this.#feeds.values()])
      for (const waiter of [...feed.waiters]) waiter.release(undefined);
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#closed) return;
    this.#timer = setTimeout(() => void this.#poll(), POLL_MS);
    this.#timer.unref?.();
  }

  async #poll(): Promise<void> {
    try {
      // Its own budget: the timer may have been set inside a request, whose budget it would inherit.
      await withDatabaseBudget(() => this.#read(), POLL_BUDGET_MS);
    } catch (error) {
      log.throttled(
        "warn",
        "feed-waiters",
        "could not read the newest events; long-polls wait for the next round",
        { error: errorLabel(error) },
      );
    }
    this.#timer = undefined;
    if (this.#feeds.size > 0) this.#schedule();
  }

  /** One round: what committed since the last, for every company waited on, in one query. */
  async #read(): Promise<void> {
    // A company whose last waiter leaves meanwhile is dropped; one that comes back is a new feed.
    const feeds = new Map(this.#feeds);
    const rows = await newEventTypes(
      this.#db,
      [...feeds].map(([companyId, feed]) => ({ companyId, after: feed.through })),
      SPAN,
    );
    const byCompany = new Map<number, NewEvents[]>();
    for (const row of rows) {
      const list = byCompany.get(row.companyId) ?? [];
      list.push(row);
      byCompany.set(row.companyId, list);
    }
    const behind: number[] = [];
    for (const [companyId, news] of byCompany) {
      const feed = feeds.get(companyId)!;
      if (this.#feeds.get(companyId) !== feed) continue;
      if (news.reduce((sum, row) => sum + row.count, 0) >= SPAN) behind.push(companyId);
      else advance(feed, news);
    }
    if (behind.length === 0) return;
    const newest = await newestSequences(this.#db, behind);
    for (const companyId of behind) {
      const feed = feeds.get(companyId)!;
      if (this.#feeds.get(companyId) !== feed) continue;
      const through = Math.max(feed.through, newest.get(companyId) ?? 0);
      feed.from = feed.through = through;
      feed.newest.clear();
      for (const waiter of [...feed.waiters]) waiter.release(through);
    }
  }
}

/** True when an event after `after` that the loop has summed up is one `wants` accepts. */
function wanted(feed: CompanyFeed, after: number, wants: EventFilter): boolean {
  for (const [type, { resource, seq }] of feed.newest)
    if (seq > after && wants({ type, resource })) return true;
  return false;
}

/** Takes in a company's new events and releases the waiters that want one of them. */
function advance(feed: CompanyFeed, news: readonly NewEvents[]): void {
  for (const { type, resource, newest } of news) feed.newest.set(type, { resource, seq: newest });
  feed.through = Math.max(feed.through, ...news.map((row) => row.newest));
  for (const waiter of [...feed.waiters]) {
    if (news.some((row) => row.newest > waiter.after && waiter.wants(row)))
      waiter.release(Math.max(waiter.after, feed.through));
    else waiter.after = Math.max(waiter.after, feed.through);
  }
}
