// One write transaction on a connection of the write pool. Autocommit is off there, so the first
// statement opens the transaction (no BEGIN is sent); a write reads what it must decide on, then
// sends everything it writes and its COMMIT as one text: one round trip, whatever the statement
// count. Every value goes in as a placeholder the driver escapes.
//
// On a Galera node a transaction that a write replicated from another node aborts (a "brute
// force" abort) in the middle of a multi-statement text does not stop the text: the rest of it
// runs as a new transaction, and the text answers 1213 only at its end. The COMMIT ending the text
// would commit that tail (records, counters and events without the item keys or keyed outcome the
// aborted part held: a write done twice once it is retried). So there a transaction opens with a
// savepoint, and its COMMIT text releases the savepoint just before the COMMIT: in a tail, a new
// transaction, the savepoint does not exist, the release fails, and the text stops before the
// COMMIT (the ROLLBACK then discards the tail). Still one round trip.
import { log } from "../base/log.ts";
import { remainingBudgetMs } from "./deadline.ts";
import { settleBy, unwatch, watch } from "./deadline-watch.ts";
import { CommitOutcomeUnknownError, DatabaseDeadlineError, errorLabel } from "./errors.ts";
import { drizzleOver, type Executor, fillPlaceholders } from "./sql.ts";
import type { GuardedConnection, GuardedPool } from "./pool.ts";

/** A statement's text with `?` placeholders and their values, or (no values) its whole text. */
export interface Statement {
  text: string;
  values?: readonly unknown[];
}

export const COMMIT: Statement = { text: "COMMIT" };
/** How long before the request's budget ends a waiting commit is interrupted. */
const INTERRUPT_MARGIN_MS = 400;
/**
 * How long past the request's budget the outcome of a commit whose answer did not tell may still
 * be looked for: the answer still leaves within the 10 s every request is promised.
 */
const SETTLE_GRACE_MS = 600;
const ROLLBACK: Statement = { text: "ROLLBACK" };
/** On Galera: the savepoint a transaction opens with, and its release just before the COMMIT. */
const SET_GUARD: Statement = { text: "SAVEPOINT write_guard" };
const RELEASE_GUARD: Statement = { text: "RELEASE SAVEPOINT write_guard" };

/** The statements as one text, each value filled in. */
const textOf = (statements: readonly Statement[]): string =>
  statements
    .map(({ text, values }) =>
      values && values.length > 0 ? fillPlaceholders(text, values) : text,
    )
    .join(";\n");

/** Each statement's result of a text of `count` statements (the driver nests them only for several). */
const resultsOf = (result: unknown, count: number): unknown[] =>
  count === 1 ? [result] : (result as unknown[]);

/** The database's answer to a statement interrupted by a KILL (ours or anyone's). */
const INTERRUPTED = 1317;

/** An error the database answered with, the connection intact: the text is over. */
function answeredByDatabase(error: unknown): boolean {
  const { errno, fatal } = error as { errno?: unknown; fatal?: unknown };
  return typeof errno === "number" && errno > 0 && fatal !== true;
}

/**
 * A statement the database refused on its own: the text stopped there. A lost or cut connection
 * says nothing of what the database did, and an interrupted statement may be a COMMIT that
 * finished before it noticed.
 */
const refusedByDatabase = (error: unknown): boolean =>
  answeredByDatabase(error) && (error as { errno?: unknown }).errno !== INTERRUPTED;

export class WriteTransaction {
  #db: Executor | undefined;
  #interrupted = false;
  /** True once a statement ran: the transaction is open until COMMIT or ROLLBACK. */
  #open = false;

  /** The connection, taken from the pool at the first statement: a write that only commits waits for none before. */
  #connection: Promise<GuardedConnection> | undefined;

  constructor(private readonly pool: GuardedPool) {}

  #connect(): Promise<GuardedConnection> {
    this.#connection ??= this.pool.getConnection();
    return this.#connection;
  }

  /** Drizzle over this transaction's connection, for the reads and writes that build their SQL with it. */
  get db(): Executor {
    if (!this.#db) {
      const opening = async (): Promise<GuardedConnection> => {
        const guard = this.#opening();
        const connection = await this.#connect();
        if (guard.length > 0) await connection.query(SET_GUARD.text);
        return connection;
      };
      const client: Pick<GuardedConnection, "query" | "execute"> = {
        query: async (input, values) => (await opening()).query(input, values),
        execute: async (input, values) => (await opening()).execute(input, values),
      };
      this.#db = drizzleOver(client, { bare: true });
    }
    return this.#db;
  }

  /** Runs the statements in one round trip; returns each one's rows (or result header), in order. */
  async run(statements: readonly Statement[]): Promise<unknown[]> {
    if (statements.length === 0) return [];
    const all = [...this.#opening(), ...statements];
    const [result] = await (await this.#connect()).query(textOf(all));
    return resultsOf(result, all.length).slice(all.length - statements.length);
  }

  /** Marks the transaction open; on Galera, the first time, the savepoint to send first. */
  #opening(): Statement[] {
    const guard = this.pool.guardCommits && !this.#open ? [SET_GUARD] : [];
    this.#open = true;
    return guard;
  }

  /**
   * Runs the statements and COMMIT in one round trip (nothing at all when nothing ran or is to
   * run), and answers only once the outcome is known: the COMMIT is on its way, so a text still
   * waiting (on a lock) when the request's budget runs out must not just be dropped, or the
   * database would go on and commit after the client was told nothing changed. Shortly before
   * the budget ends its statement is interrupted (KILL QUERY, from the supervisor's connection,
   * outside the pool it may be waiting behind), which ends the text before its COMMIT or finds it
   * committed. When the text's answer cannot be trusted to tell (it was interrupted: the COMMIT
   * itself may have finished; or its connection was lost), the database's thread is made sure to
   * be over and `probe`, a read of the text's own rows, tells whether it committed (the database
   * may be back from a crash by then). A commit that cannot be settled so within the request's
   * bound (the database stays away) throws CommitOutcomeUnknownError.
   *
   * Returns each statement's result; none (undefined each) for a commit the probe found.
   */
  async commit(statements: readonly Statement[], probe?: Statement): Promise<unknown[]> {
    if (statements.length === 0 && !this.#open) return [];
    const connection = await this.#connect();
    const supervisor = this.pool.supervisor;
    if (!supervisor) throw new Error("a write pool needs its supervisor (db/client.ts)");
    const budget = remainingBudgetMs();
    if (budget <= 0) throw new DatabaseDeadlineError("a commit");
    const opening = this.#opening();
    const all = [...opening, ...statements, ...(this.pool.guardCommits ? [RELEASE_GUARD] : [])];
    all.push(COMMIT);
    const sentAt = Date.now();
    const { threadId } = connection;
    const pending = connection.unbounded(textOf(all));
    const interrupt =
      threadId === undefined
        ? undefined
        : watch(sentAt + budget - INTERRUPT_MARGIN_MS, () => {
            this.#interrupted = true;
            supervisor.killQuery(threadId).catch(() => undefined);
          });
    let answered = true;
    try {
      const [result] = await settleBy(pending, sentAt + budget, () => {
        answered = false;
        return new DatabaseDeadlineError("a commit");
      });
      this.#open = false;
      return resultsOf(result, all.length).slice(
        opening.length,
        opening.length + statements.length,
      );
    } catch (error) {
      if (interrupt) unwatch(interrupt);
      // The database's own refusal of a statement, nothing interrupted: the text stopped there, so
      // its COMMIT never ran (the transaction stays open until the caller's ROLLBACK).
      if (answered && refusedByDatabase(error) && !this.#interrupted) throw error;
      // The text is over when the database answered it; else its thread is ended first.
      answered &&= answeredByDatabase(error);
      // Whatever comes, this connection is not used again.
      this.#interrupted = true;
      this.#open = false;
      if (!answered) connection.discard();
      // A text with nothing to look for writes no record, event or key a client could see.
      if (threadId === undefined || !probe) throw error;
      const committed = await supervisor
        .committed(threadId, probe, {
          ended: answered,
          sentAt,
          until: Math.max(sentAt + budget, Date.now()) + SETTLE_GRACE_MS,
        })
        .catch((failure: unknown) => {
          log.warn("a commit's outcome could not be read back in time", {
            error: errorLabel(failure),
            ended: answered,
            after_ms: Date.now() - sentAt,
            budget_ms: budget,
          });
          throw new CommitOutcomeUnknownError();
        });
      log.info("a commit's answer did not tell its outcome; read from its rows", { committed });
      if (!committed) throw error;
      return statements.map(() => undefined);
    } finally {
      if (interrupt) unwatch(interrupt);
    }
  }

  /** True once a statement ran and until COMMIT or ROLLBACK: the transaction may hold reads and locks. */
  get open(): boolean {
    return this.#open;
  }

  /** Gives the connection back, if one was taken; an interrupted one is closed instead. */
  async end(): Promise<void> {
    const taken = this.#connection;
    if (!taken) return;
    this.#connection = undefined;
    const connection = await taken.catch(() => undefined);
    // An interrupted connection may still carry the interruption into its next statement.
    if (this.#interrupted) connection?.discard();
    else connection?.release();
  }

  /** True when a statement of this transaction was interrupted: the connection is not reused. */
  get interrupted(): boolean {
    return this.#interrupted;
  }

  /** Ends the transaction without writing; a no-op when nothing ran. */
  async rollback(): Promise<void> {
    if (!this.#open) return;
    this.#open = false;
    await this.run([ROLLBACK]);
    this.#open = false;
  }
}

/** Runs `work` in a transaction of its own: rolled back unless `work` committed it. */
export async function inWriteTransaction<T>(
  writer: GuardedPool,
  work: (tx: WriteTransaction) => Promise<T>,
): Promise<T> {
  const tx = new WriteTransaction(writer);
  try {
    const result = await work(tx);
    await tx.rollback();
    return result;
  } catch (error) {
    // A connection the pool destroyed (a statement past its budget) was rolled back by the server.
    await tx.rollback().catch(() => undefined);
    throw error;
  } finally {
    await tx.end();
  }
}
