// One write transaction on a connection of the write pool. Autocommit is off there, so the first
// statement opens the transaction (no BEGIN is sent); a write reads what it must decide on, then
// sends everything it writes and its COMMIT as one text: one round trip, whatever the statement
// count. Every value goes in as a placeholder the driver escapes. A text larger than the database
// takes in one packet (max_allowed_packet: a 500-item upsert of long text is about 5.5 MB) goes as
// several, split between statements and between the rows of a multi-row INSERT, the COMMIT last.
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
  /**
   * A multi-row INSERT without values (made by `rowsStatement`): where each row starts in `text`
   * and where the last one ends, so that a text too large for one round trip can send it as
   * several statements, each with some of its rows.
   */
  rows?: { readonly starts: readonly number[]; readonly end: number };
}

/**
 * A multi-row INSERT: `head`, the rows comma-separated, then `tail` (e.g. its ON DUPLICATE KEY
 * UPDATE). Each row stays whole in one statement; its rows may go as several statements.
 */
export function rowsStatement(head: string, rows: readonly string[], tail = ""): Statement {
  const starts: number[] = [];
  let text = head;
  for (const [index, row] of rows.entries()) {
    if (index > 0) text += ", ";
    starts.push(text.length);
    text += row;
  }
  return { text: text + tail, rows: { starts, end: text.length } };
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

/** A statement's text, each value filled in. */
const filled = ({ text, values }: Statement): string =>
  values && values.length > 0 ? fillPlaceholders(text, values) : text;

const SEPARATOR = ";\n";

/** Texts to send one after the other, each with the number of statements in it. */
interface Text {
  text: string;
  count: number;
}

/** The statements as one text, each value filled in. */
const textOf = (statements: readonly Statement[]): Text => ({
  text: statements.map(filled).join(SEPARATOR),
  count: statements.length,
});

/** A text's size in bytes, known to be at most `limit` by its length alone when that is short enough. */
const fits = (text: string, limit: number): boolean =>
  text.length * 3 <= limit || Buffer.byteLength(text) <= limit;

/**
 * One multi-row statement as several, each with as many rows as fit within `limit` bytes (a row
 * larger than that goes alone: the database refuses it, and the start check warns of a
 * max_allowed_packet that small).
 */
function splitRows(statement: Statement, limit: number): string[] {
  const { text, rows } = statement;
  if (!rows || rows.starts.length < 2) return [text];
  const head = text.slice(0, rows.starts[0]);
  const tail = text.slice(rows.end);
  const row = (index: number): string => {
    const next = rows.starts[index + 1];
    // Each row but the last is followed by ", " up to where the next one starts.
    return next === undefined
      ? text.slice(rows.starts[index], rows.end)
      : text.slice(rows.starts[index], next - 2);
  };
  const budget = limit - Buffer.byteLength(head) - Buffer.byteLength(tail);
  const pieces: string[] = [];
  let current: string[] = [];
  let size = 0;
  for (let index = 0; index < rows.starts.length; index++) {
    const next = row(index);
    const bytes = Buffer.byteLength(next) + 2;
    if (current.length > 0 && size + bytes > budget) {
      pieces.push(head + current.join(", ") + tail);
      current = [];
      size = 0;
    }
    current.push(next);
    size += bytes;
  }
  pieces.push(head + current.join(", ") + tail);
  return pieces;
}

/**
 * The statements as texts of at most `limit` bytes each (the database's max_allowed_packet), in
 * order: as one text whenever it fits (a write is one round trip), else split between statements
 * and, for a multi-row INSERT too large alone, between its rows. `sizes` says how many statements
 * each of the given ones became.
 */
function textsOf(
  statements: readonly Statement[],
  limit: number | undefined,
): { texts: Text[]; sizes: number[] } {
  const whole = textOf(statements);
  const sizes = statements.map(() => 1);
  if (limit === undefined || fits(whole.text, limit)) return { texts: [whole], sizes };
  const texts: Text[] = [];
  let current: string[] = [];
  let size = 0;
  const flush = (): void => {
    if (current.length > 0) texts.push({ text: current.join(SEPARATOR), count: current.length });
    current = [];
    size = 0;
  };
  for (const [index, statement] of statements.entries()) {
    const text = filled(statement);
    const parts = fits(text, limit) ? [text] : splitRows(statement, limit);
    sizes[index] = parts.length;
    for (const part of parts) {
      const bytes = Buffer.byteLength(part) + SEPARATOR.length;
      if (size + bytes > limit) flush();
      current.push(part);
      size += bytes;
    }
  }
  flush();
  return { texts, sizes };
}

/**
 * Each given statement's result, from the results of the texts it was sent as: a statement sent
 * as several (its rows split) answers the first one's, with the rows they affected added up.
 */
function joinResults(results: readonly unknown[], sizes: readonly number[]): unknown[] {
  const joined: unknown[] = [];
  let at = 0;
  for (const size of sizes) {
    const parts = results.slice(at, at + size);
    at += size;
    if (parts.length < 2) {
      joined.push(parts[0]);
      continue;
    }
    const first = parts[0] as { affectedRows?: number };
    const affectedRows = parts.reduce<number>(
      (sum, part) => sum + ((part as { affectedRows?: number } | undefined)?.affectedRows ?? 0),
      0,
    );
    joined.push({ ...first, affectedRows });
  }
  return joined;
}

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

  /**
   * Runs the statements in one round trip (several only when their text is larger than the
   * database takes at once); returns each one's rows (or result header), in order.
   */
  async run(statements: readonly Statement[]): Promise<unknown[]> {
    if (statements.length === 0) return [];
    const opening = this.#opening();
    const { texts, sizes } = textsOf([...opening, ...statements], this.pool.maxTextBytes);
    const results = await this.#send(await this.#connect(), texts);
    return joinResults(results, sizes).slice(opening.length);
  }

  /** Sends the texts one after the other, each within the request's budget: every statement's result. */
  async #send(connection: GuardedConnection, texts: readonly Text[]): Promise<unknown[]> {
    const results: unknown[] = [];
    for (const { text, count } of texts) {
      const [result] = await connection.query(text);
      results.push(...resultsOf(result, count));
    }
    return results;
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
    if (remainingBudgetMs() <= 0) throw new DatabaseDeadlineError("a commit");
    const opening = this.#opening();
    const all = [...opening, ...statements, ...(this.pool.guardCommits ? [RELEASE_GUARD] : [])];
    all.push(COMMIT);
    const { texts, sizes } = textsOf(all, this.pool.maxTextBytes);
    // A text too large for one round trip: its first parts are plain statements of the open
    // transaction (a failure leaves nothing committed); the last one ends with the COMMIT.
    const earlier = await this.#send(connection, texts.slice(0, -1));
    const last = texts.at(-1)!;
    const budget = remainingBudgetMs();
    if (budget <= 0) throw new DatabaseDeadlineError("a commit");
    const sentAt = Date.now();
    const { threadId } = connection;
    const pending = connection.unbounded(last.text);
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
      return joinResults([...earlier, ...resultsOf(result, last.count)], sizes).slice(
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
