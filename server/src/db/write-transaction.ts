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
import { drizzle } from "drizzle-orm/mysql2";
import type { Pool } from "mysql2/promise";
import type { Executor } from "./client.ts";
import { remainingBudgetMs } from "./deadline.ts";
import { fillPlaceholders } from "./sql-literal.ts";
import type { GuardedConnection, GuardedPool } from "./pool.ts";

/** A statement's text with `?` placeholders and their values, or (no values) its whole text. */
export interface Statement {
  text: string;
  values?: readonly unknown[];
}

export const COMMIT: Statement = { text: "COMMIT" };
/** How long before the request's budget ends a waiting commit is interrupted. */
const INTERRUPT_MARGIN_MS = 600;
const ROLLBACK: Statement = { text: "ROLLBACK" };
/** On Galera: the savepoint a transaction opens with, and its release just before the COMMIT. */
const SET_GUARD: Statement = { text: "SAVEPOINT write_guard" };
const RELEASE_GUARD: Statement = { text: "RELEASE SAVEPOINT write_guard" };

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
      this.#db = drizzle(client as unknown as Pool, { mode: "default" }) as unknown as Executor;
    }
    return this.#db;
  }

  /** Runs the statements in one round trip; returns each one's rows (or result header), in order. */
  async run(statements: readonly Statement[]): Promise<unknown[]> {
    if (statements.length === 0) return [];
    const all = [...this.#opening(), ...statements];
    const text = all
      .map(({ text, values }) =>
        values && values.length > 0 ? fillPlaceholders(text, values) : text,
      )
      .join(";\n");
    const [result] = await (await this.#connect()).query(text);
    return (all.length === 1 ? [result] : (result as unknown[])).slice(
      all.length - statements.length,
    );
  }

  /** Marks the transaction open; on Galera, the first time, the savepoint to send first. */
  #opening(): Statement[] {
    const guard = this.pool.guardCommits && !this.#open ? [SET_GUARD] : [];
    this.#open = true;
    return guard;
  }

  /**
   * Runs the statements and COMMIT in one round trip (nothing at all when nothing ran or is to
   * run). The COMMIT is already on its way, so a request whose budget runs out while a statement
   * waits (a lock) must not just drop the connection: the server would go on and commit after
   * the client was told nothing changed. It interrupts the statement instead (KILL QUERY), which
   * ends the text before the COMMIT, and learns from the text's own answer what happened.
   */
  async commit(statements: readonly Statement[]): Promise<unknown[]> {
    if (statements.length === 0 && !this.#open) return [];
    const { threadId } = await this.#connect();
    const interrupt =
      threadId === undefined
        ? undefined
        : setTimeout(
            () => {
              this.#interrupted = true;
              this.pool.killQuery(threadId).catch(() => undefined);
            },
            Math.max(0, remainingBudgetMs() - INTERRUPT_MARGIN_MS),
          );
    try {
      const results = await this.run([
        ...statements,
        ...(this.pool.guardCommits ? [RELEASE_GUARD] : []),
        COMMIT,
      ]);
      this.#open = false;
      return results.slice(0, statements.length);
    } finally {
      clearTimeout(interrupt);
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
