// The database connections that look after the write pool from outside it: they interrupt a
// statement that is stuck (a commit text waiting on a lock), end the database's thread of a
// connection whose answer was lost, and look for a commit's own rows once that thread is gone.
// They are a pool of their own: an interruption sent through the write pool would wait behind
// the very statements it is meant to stop (every connection of a full pool may be stuck on the
// same lock), land after the request had answered, or never (docs/writes-and-retries.md).
import { databaseErrorKind } from "./errors.ts";
import { withDatabaseBudget } from "./deadline.ts";
import { fillPlaceholders } from "./sql.ts";

/** A statement's text with `?` placeholders and their values. */
interface Probe {
  text: string;
  values?: readonly unknown[];
}

/** How long one statement of the supervisor may take. */
const STATEMENT_BUDGET_MS = 2_000;
/** Pause between two tries while the database does not answer, or a killed thread is ending. */
const PAUSE_MS = 100;
/** The database's answer to KILL for a thread that has ended already. */
const NO_SUCH_THREAD = 1094;

/** The pool the supervisor's statements go through (a guarded pool of its own, db/pool.ts). */
interface StatementPool {
  query(text: string): Promise<[unknown, unknown]>;
}

export class Supervisor {
  constructor(private readonly pool: StatementPool) {}

  /** One statement, given up at `until` (epoch ms) at the latest. */
  async #query<T>(
    text: string,
    values: readonly unknown[] = [],
    until = Number.POSITIVE_INFINITY,
  ): Promise<T[]> {
    const budget = Math.max(1, Math.min(STATEMENT_BUDGET_MS, until - Date.now()));
    const [rows] = await withDatabaseBudget(
      () => this.pool.query(values.length > 0 ? fillPlaceholders(text, values) : text),
      budget,
    );
    return rows as T[];
  }

  /** Interrupts the statement the database's thread `threadId` runs, if it still runs one. */
  async killQuery(threadId: number): Promise<void> {
    await this.#query("KILL QUERY ?", [threadId]).catch((error: unknown) => {
      if ((error as { errno?: unknown }).errno !== NO_SUCH_THREAD) throw error;
    });
  }

  /**
   * Ends thread `threadId` (a connection of ours whose answer was lost) and returns once it is
   * gone, so whatever its text was doing is over. A database that restarted after `sentAt` (epoch
   * ms) ended it already; and a thread id it hands out again would be another connection's.
   */
  async #endThread(threadId: number, sentAt: number, until: number): Promise<void> {
    const [uptime] = await this.#query<{ Value: string }>(
      "SHOW GLOBAL STATUS LIKE 'Uptime'",
      [],
      until,
    );
    // The uptime is whole seconds: a start within the second after `sentAt` counts as before it.
    if (Date.now() - Number(uptime?.Value ?? 0) * 1_000 > sentAt + 1_000) return;
    try {
      await this.#query("KILL CONNECTION ?", [threadId], until);
    } catch (error) {
      if ((error as { errno?: unknown }).errno === NO_SUCH_THREAD) return;
      throw error;
    }
    // A killed thread finishes what it cannot stop halfway (a commit) before it goes.
    for (;;) {
      const running = await this.#query(
        "SELECT 1 FROM information_schema.PROCESSLIST WHERE ID = ?",
        [threadId],
        until,
      );
      if (running.length === 0) return;
      if (Date.now() >= until) throw new Error(`thread ${threadId} did not end after its KILL`);
      await Bun.sleep(PAUSE_MS / 4);
    }
  }

  /**
   * Whether a commit text that ran on thread `threadId` committed: true when `probe` (a read of
   * the text's own rows) finds them once the text is over. `ended` says the thread answered the
   * text (it is over, the thread idle); otherwise the thread is ended first. Tries again
   * while the database does not answer, until `until` (epoch ms); then throws.
   */
  async committed(
    threadId: number,
    probe: Probe,
    options: { ended: boolean; sentAt: number; until: number },
  ): Promise<boolean> {
    let ended = options.ended;
    for (;;) {
      try {
        if (!ended) await this.#endThread(threadId, options.sentAt, options.until);
        ended = true;
        return (await this.#query(probe.text, probe.values, options.until)).length > 0;
      } catch (error) {
        if (databaseErrorKind(error) !== "unavailable" || Date.now() + PAUSE_MS >= options.until)
          throw error;
        await Bun.sleep(PAUSE_MS);
      }
    }
  }
}
