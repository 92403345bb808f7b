// Idempotent writes: a key runs its operation at most once per company and replays the outcome.
// Only a real write that succeeded binds its key (CONTRACT 6): the outcome is stored in the
// write's own transaction, so a refusal, a crash or a 5xx leaves nothing behind and a retry with
// the same key simply runs again against the current state. A dry-run never consumes a key.
import type { Database, Transaction } from "../db/client.ts";
import type { ChangeLog, RecordChange } from "./changes.ts";
import { ApiError } from "../http/problem.ts";
import type { RequestContext } from "../http/request-context.ts";
import { readOutcome, storeOutcome, type StoredOutcome } from "./idempotency-store.ts";
import { transact } from "./transact.ts";

export interface WriteResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** What the write changed (nothing for a dry-run or a no-op). */
  changes?: readonly RecordChange[];
}

export type WriteOperation = (tx: Transaction) => Promise<WriteResult>;

const KEY_FORMAT = /^[\x20-\x7e]{1,255}$/;

/** 400 unless the key is 1–255 printable ASCII characters. */
export function checkIdempotencyKey(key: string | undefined): void {
  if (key === undefined || KEY_FORMAT.test(key)) return;
  throw new ApiError(400, "invalid_idempotency_key", "Idempotency-Key must be 1 to 255 printable ASCII characters.");
}

// Retry-After 1: the request holding the key had already waited a lock-wait for it to finish.
const inProgress = (): ApiError => new ApiError(409, "idempotency_in_progress",
  "A request with this Idempotency-Key is still running; retry after it finishes to get its result.", undefined, { "retry-after": "1" });

const keyReuse = (): ApiError => new ApiError(409, "idempotency_key_reuse",
  "This Idempotency-Key was already used for a different request (method, path, dry-run flag or body); use a new key for a new request.");

/** Another request with the key committed while this one ran: roll back and replay theirs. */
class KeyTaken extends Error {}

function replay(ctx: RequestContext, stored: StoredOutcome): WriteResult {
  if (stored.fingerprint !== ctx.fingerprint) throw keyReuse();
  ctx.replayed = true;
  return { status: stored.response.status, body: JSON.parse(stored.response.body), headers: { ...stored.response.headers, "idempotent-replayed": "true" } };
}

/**
 * Runs a write in one transaction, with its changes logged in that transaction. With an
 * Idempotency-Key: a stored outcome with the same fingerprint is replayed, with another one is
 * 409 idempotency_key_reuse; otherwise the write runs and its outcome is stored in its
 * transaction. A duplicate arriving while the first runs waits on the key's row lock, then
 * replays the first's outcome (or is told it is still running).
 */
export async function executeWrite(db: Database, ctx: RequestContext, changeLog: ChangeLog, write: WriteOperation): Promise<WriteResult> {
  // The change log comes last: taking the company's next event numbers locks its sequence row
  // until the commit, so nothing else may run while that lock is held.
  const logChanges = async (tx: Transaction, result: WriteResult): Promise<WriteResult> => {
    if (!ctx.dryRun && result.changes?.length) await changeLog(tx, ctx, result.changes);
    return result;
  };
  const operation: WriteOperation = async (tx) => logChanges(tx, await write(tx));
  const { companyId, idempotencyKey: key, fingerprint } = ctx;
  if (key === undefined) return transact(db, operation);
  if (companyId === undefined || fingerprint === undefined) throw new Error("a keyed write needs an authenticated, fingerprinted request");
  for (let attempt = 0; attempt < 3; attempt++) {
    const stored = await readOutcome(db, companyId, key);
    if (stored) return replay(ctx, stored);
    // A dry-run is previewed without a trace: the real write may use the key next.
    if (ctx.dryRun) return transact(db, operation);
    try {
      return await transact(db, async (tx) => {
        const result = await write(tx);
        const response = { status: result.status, headers: result.headers ?? {}, body: JSON.stringify(result.body) };
        const outcome = await storeOutcome(tx, companyId, key, fingerprint, response);
        if (outcome === "busy") throw inProgress();
        if (outcome === "taken") throw new KeyTaken();
        return logChanges(tx, result);
      });
    } catch (error) {
      if (!(error instanceof KeyTaken)) throw error;
    }
  }
  throw inProgress();
}
