// Long-polls of the change feed wait here, in memory, for their company's next event: no waiting
// request holds a database connection or budget. One loop per process reads the newest sequence
// number of every company that has waiters, in one query every POLL_MS, so a commit on any
// process or cluster node releases them within that; a write this process commits releases its
// company's waiters at once. A released request then reads the feed like any other.
import { log } from "../base/log.ts";
import type { Database } from "../db/client.ts";
import { withDatabaseBudget } from "../db/deadline.ts";
import { errorLabel } from "../db/errors.ts";
import { newestSequences } from "./newest-sequences.ts";

/** How often the loop reads the newest sequence numbers while anyone waits. */
const POLL_MS = 200;
/** The database budget of one such read: a slow one only delays the waiters to the next round. */
const POLL_BUDGET_MS = 2_000;

interface Waiter {
  /** The sequence number the waiter has seen: it waits for a newer one. */
  after: number;
  release(newest: number | undefined): void;
}

export class FeedWaiters {
  readonly #db: Database;
  readonly #waiting = new Map<number, Set<Waiter>>();
  /** The newest sequence number the loop last read, per company that has waiters. */
  readonly #newest = new Map<number, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(db: Database) {
    this.#db = db;
  }

  /**
   * Resolves once the company may have an event after sequence number `after`, with the sequence
   * number the waiter has seen by then (pass it as `after` to wait again when the feed still
   * shows nothing new to this reader); resolves undefined after `timeoutMs`, when `signal`
   * aborts (the client left) or at shutdown.
   */
  wait(
    companyId: number,
    after: number,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<number | undefined> {
    if (this.#closed || signal?.aborted || timeoutMs <= 0) return Promise.resolve(undefined);
    // The loop already read a newer number (for another waiter) since this one last looked.
    const known = this.#newest.get(companyId);
    if (known !== undefined && known > after) return Promise.resolve(known);
    return new Promise((resolve) => {
      const waiters = this.#waiting.get(companyId) ?? new Set<Waiter>();
      this.#waiting.set(companyId, waiters);
      const onAbort = (): void => waiter.release(undefined);
      const timer = setTimeout(onAbort, timeoutMs);
      const waiter: Waiter = {
        after,
        release: (newest) => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          waiters.delete(waiter);
          if (waiters.size === 0 && this.#waiting.get(companyId) === waiters) {
            this.#waiting.delete(companyId);
            this.#newest.delete(companyId);
          }
          resolve(newest);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      waiters.add(waiter);
      this.#schedule();
    });
  }

  /**
   * This process committed a write with events of the company: its waiters read the feed now
   * instead of at the next round. They are told the newest number the loop has read (the
   * commit's own number may belong to a transaction that was retried), so a waiter the new event
   * does not concern waits again without reading in a loop.
   */
  committed(companyId: number): void {
    const known = this.#newest.get(companyId) ?? 0;
    for (const waiter of [...(this.#waiting.get(companyId) ?? [])])
      waiter.release(Math.max(waiter.after, known));
  }

  /** Shutdown: every waiter is answered now, and later waits return at once. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const waiters of [...this.#waiting.values()])
      for (const waiter of [...waiters]) waiter.release(undefined);
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#closed) return;
    this.#timer = setTimeout(() => void this.#poll(), POLL_MS);
    this.#timer.unref?.();
  }

  async #poll(): Promise<void> {
    try {
      // Its own budget: the timer may have been set inside a request, whose budget it would inherit.
      const newest = await withDatabaseBudget(
        () => newestSequences(this.#db, [...this.#waiting.keys()]),
        POLL_BUDGET_MS,
      );
      for (const [companyId, sequence] of newest) this.#advance(companyId, sequence);
    } catch (error) {
      log.throttled(
        "warn",
        "feed-waiters",
        "could not read the newest events; long-polls wait for the next round",
        { error: errorLabel(error) },
      );
    }
    this.#timer = undefined;
    if (this.#waiting.size > 0) this.#schedule();
  }

  #advance(companyId: number, newest: number): void {
    const waiters = this.#waiting.get(companyId);
    if (!waiters) return;
    this.#newest.set(companyId, newest);
    for (const waiter of [...waiters]) if (newest > waiter.after) waiter.release(newest);
  }
}
