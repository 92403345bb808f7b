// Runs one write: in one transaction on the write pool, with everything it writes, its keyed
// outcome, counters and events committed in one round trip (together with the company's writes
// that came meanwhile, writes/group-commits.ts); again when the database rolled it
// back whole (a deadlock, a lock wait, a cluster certification conflict) or when a commit met a
// unique value or key that another write committed first (running it again decides against that
// write: a 409, an update instead of a create, or the other write's stored outcome), for as long
// as the request's budget lasts. With an Idempotency-Key, a stored outcome with the same
// fingerprint is replayed and another fingerprint is 409 idempotency_key_reuse; only a real write
// that succeeded stores its outcome, in its own commit (docs/writes-and-retries.md).
//
// A batch's item keys are taken to be new on its first attempt, the common case, and not read
// first: the commit binds them, so a key already bound fails it as a duplicate and the next
// attempt reads them (a batch checks the keys of items it refused itself, writes/write-records.ts;
// a dry-run, which commits nothing, reads them). The request's own key is read before anything
// runs: its replay is then one SELECT.
import type { Database } from "../db/client.ts";
import { remainingBudgetMs } from "../db/deadline.ts";
import { DatabaseDeadlineError, databaseErrorKind, duplicateKeyName } from "../db/errors.ts";
import type { IdAllocator } from "../db/ids.ts";
import type { GuardedPool } from "../db/pool.ts";
import { inWriteTransaction, type WriteTransaction } from "../db/write-transaction.ts";
import { commitPart, commitStatements } from "./commit.ts";
import type { GroupCommits } from "./group-commits.ts";
import { idempotencyInProgress } from "../refusals/catalogue.ts";
import { keyInFlight, replay } from "./idempotency.ts";
import {
  dropExpiredOutcome,
  readOutcome,
  storedOutcomeProbe,
  storeOutcome,
} from "./idempotency-store.ts";
import type { Reads } from "./outside-reads.ts";
import type { WritePlan } from "./plan.ts";
import { rowChanged } from "./row-versions.ts";
import type { WriteTurns } from "./write-turns.ts";

/**
 * Where writes go: the read pool (outcome look-ups, and the look-ups of writes that decide outside
 * their transaction), the write pool, this process's ids, its group commits and its batches' turns.
 */
export interface WriteStore {
  db: Database;
  outside: Reads;
  writer: GuardedPool;
  ids: IdAllocator;
  commits: GroupCommits;
  turns: WriteTurns;
}

/** The facts of the request a write needs. */
export interface WriteRequest {
  companyId: number;
  requestId: string;
  dryRun: boolean;
  idempotencyKey?: string;
  /** What the key is bound to (method, path, dry-run flag, body); set when there is a key. */
  fingerprint?: string;
  /** A batch: it runs in its company's turn (writes/write-turns.ts). */
  batch?: boolean;
}

/** What a write decided: its outcome, and what to commit for it. */
export interface Decided<O> {
  outcome: O;
  /** What to commit; absent for an operation that wrote directly (or not at all). */
  plan?: WritePlan;
}

/** What a write attempt knows before its operation runs. */
export interface WriteAttempt {
  /** Item keys are to be read before the items are decided (else a bound one is met at commit). */
  itemKeysRead: boolean;
}

export type WriteOperation<O> = (
  tx: WriteTransaction,
  attempt: WriteAttempt,
) => Promise<Decided<O>>;

/**
 * The answer an outcome is sent as. It is made inside the write's transaction, because a keyed
 * write stores it in its commit and a replay sends it again as it was.
 */
export interface Answer<B = unknown> {
  status: number;
  body: B;
  headers?: Record<string, string>;
  /**
   * The body a keyed write stores and a replay sends, when it differs from `body`: without the
   * secret a token create shows once (a secret is kept only as its hash, docs/tokens.md).
   */
  stored?: B;
}

export interface WriteAnswer<B = unknown> {
  status: number;
  body: B;
  headers: Record<string, string>;
  /** A stored outcome was replayed: nothing ran. */
  replayed: boolean;
  /** Events the write committed (none for a dry-run, a replay or a write that changed nothing). */
  events: number;
}

/** Below this much budget another attempt would not finish; the error reaches the caller (503). */
const MIN_ATTEMPT_MS = 500;
/** Commits that met another write's unique value or key: each new attempt decides against it. */
const MAX_DUPLICATE_ATTEMPTS = 3;

/** A duplicate on a table's own id key: an id of this process's block was already used. */
const isIdKey = (name: string | undefined): boolean =>
  name !== undefined && (name === "PRIMARY" || (/_id$/.test(name) && !/_external_id$/.test(name)));

export async function executeWrite<O, B>(
  store: WriteStore,
  request: WriteRequest,
  operation: WriteOperation<O>,
  respond: (outcome: O) => Answer<B>,
): Promise<WriteAnswer<B>> {
  if (!request.batch) return attemptWrite(store, request, operation, respond);
  const taken = store.turns.take(request.companyId);
  const release = taken instanceof Promise ? await taken : taken;
  try {
    return await attemptWrite(store, request, operation, respond);
  } finally {
    release();
  }
}

/** Runs the write, again as often as the database rolls it back whole and the budget lasts. */
async function attemptWrite<O, B>(
  store: WriteStore,
  request: WriteRequest,
  operation: WriteOperation<O>,
  respond: (outcome: O) => Answer<B>,
): Promise<WriteAnswer<B>> {
  const { companyId, idempotencyKey: key, fingerprint } = request;
  if (key !== undefined && fingerprint === undefined)
    throw new Error("a keyed write needs its fingerprint");
  let duplicates = 0;
  for (let attempt = 1; ; attempt++) {
    if (key !== undefined) {
      const stored = await readOutcome(store.db, companyId, key);
      // The body this request's own answer had when it was stored (by the same `respond`).
      if (stored) return { ...replay<B>(stored, fingerprint!), replayed: true, events: 0 };
    }
    const itemKeysRead = request.dryRun || attempt > 1;
    let plan: WritePlan | undefined;
    try {
      return await inWriteTransaction(store.writer, async (tx) => {
        const decided = await operation(tx, { itemKeysRead });
        plan = decided.plan;
        const answer = respond(decided.outcome);
        const headers = answer.headers ?? {};
        if (!request.dryRun) {
          const source = { companyId, requestId: request.requestId, idempotencyKey: key };
          // A dry-run is previewed without a trace: the real write may use the key next.
          const keyed =
            key === undefined
              ? undefined
              : {
                  statement: storeOutcome(companyId, key, fingerprint!, {
                    status: answer.status,
                    headers,
                    body: JSON.stringify(answer.stored ?? answer.body),
                  }),
                  probe: storedOutcomeProbe(companyId, key, fingerprint!),
                };
          const part = commitPart(source, plan, keyed);
          // A write of one record joins its company's group commit; a batch's many rows already
          // share one hand-over of the counter row, and it overlaps best with the batches after it alone.
          if ((plan?.changes.length ?? 0) <= 1) await store.commits.commit(tx, part);
          else await tx.commit(commitStatements([part]), part.probe);
        }
        return {
          status: answer.status,
          body: answer.body,
          headers,
          replayed: false,
          events: request.dryRun ? 0 : (plan?.changes.length ?? 0),
        };
      });
    } catch (error) {
      // Decided on a row that changed since it was read: decided again on the row as it is now.
      if (rowChanged(error)) {
        if (remainingBudgetMs() >= MIN_ATTEMPT_MS) continue;
        throw new DatabaseDeadlineError("a write whose records kept changing");
      }
      const kind = databaseErrorKind(error);
      if (kind === undefined || remainingBudgetMs() < MIN_ATTEMPT_MS) throw error;
      if (kind === "duplicate") {
        // The first attempt's duplicate may be an item key it did not read: expected, not counted.
        if (attempt > 1 && ++duplicates > MAX_DUPLICATE_ATTEMPTS) throw error;
        if (isIdKey(duplicateKeyName(error)))
          for (const table of plan?.insertedTables ?? []) await store.ids.resync(table);
        // A key whose row is past the replay window is bound anew; else the next attempt replays it.
        if (key !== undefined) await dropExpiredOutcome(store.db, companyId, key);
        continue;
      }
      if (
        kind === "lock_wait" &&
        key !== undefined &&
        (await keyInFlight(store.writer, companyId, key))
      )
        throw idempotencyInProgress();
      if (kind !== "retryable" && kind !== "lock_wait") throw error;
      // Contenders that collided would collide again at once: spread them out a little.
      await Bun.sleep(Math.min(200, 5 * 2 ** attempt) * Math.random());
    }
  }
}
