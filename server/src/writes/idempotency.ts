// Idempotent writes: a key runs its operation at most once per company and replays the outcome.
import { envMilliseconds } from "../config.ts";
import type { Database, Transaction } from "../db/client.ts";
import { log } from "../log.ts";
import { ApiError, PROBLEM_CONTENT_TYPE } from "../http/problem.ts";
import type { RequestContext } from "../http/request-context.ts";
import type { WriteResult } from "./execute.ts";
import { claimKey, completeKey, releaseKey, type StoredResponse } from "./idempotency-store.ts";

/**
 * How long an in-flight marker protects its key. A marker left by a process that died expires
 * after this and the next retry runs; ERP_IDEMPOTENCY_LOCK_MS shortens it for tests.
 */
export const LOCK_MS = envMilliseconds("ERP_IDEMPOTENCY_LOCK_MS", 30_000);

/** The operation's own refusals; they are outcomes of the key like a success. */
const STORED_FAILURES = new Set([402, 404, 409, 412, 422]);

const KEY_FORMAT = /^[\x20-\x7e]{1,255}$/;

/** 400 unless the key is 1–255 printable ASCII characters. */
export function checkIdempotencyKey(key: string | undefined): void {
  if (key === undefined || KEY_FORMAT.test(key)) return;
  throw new ApiError(400, "invalid_idempotency_key", "Idempotency-Key must be 1 to 255 printable ASCII characters.");
}

// Retry-After 1: the request holding the key is normally milliseconds from done (a dead
// holder's marker expires after LOCK_MS; the client keeps retrying until then).
const inProgress = (): ApiError => new ApiError(409, "idempotency_in_progress",
  "A request with this Idempotency-Key is still running; retry after it finishes to get its result.", undefined, { "retry-after": "1" });

const keyReuse = (): ApiError => new ApiError(409, "idempotency_key_reuse",
  "This Idempotency-Key was already used for a different request (method, path, dry-run flag or body); use a new key for a new request.");

/** Completes the key inside the write's transaction; the write rolls back if it cannot. */
export type Completion = (tx: Transaction, result: WriteResult) => Promise<void>;

/** Thrown inside the transaction when another process took the key over: roll back. */
class Superseded extends Error {}

function storedSuccess(result: WriteResult): StoredResponse {
  return { status: result.status, headers: result.headers ?? {}, body: JSON.stringify(result.body) };
}

function storedFailure(error: ApiError, requestId: string): StoredResponse {
  return { status: error.status, headers: { "content-type": PROBLEM_CONTENT_TYPE, ...error.headers }, body: JSON.stringify(error.body(requestId)) };
}

function replayHeaders(response: StoredResponse): Record<string, string> {
  return { ...response.headers, "idempotent-replayed": "true" };
}

/**
 * Runs `execute` under the request's key. A completed key with the same fingerprint replays
 * its stored response (marking the context replayed); a different fingerprint is 409
 * idempotency_key_reuse; a live marker is 409 idempotency_in_progress. Otherwise the
 * operation runs and `complete` must be called in its transaction. The operation's own
 * refusals are stored after its rollback; anything else (5xx) releases the marker.
 */
export async function runIdempotently(db: Database, ctx: RequestContext, execute: (complete: Completion) => Promise<WriteResult>): Promise<WriteResult> {
  const { company, idempotencyKey: key, fingerprint } = ctx;
  if (!company || key === undefined || fingerprint === undefined) throw new Error("runIdempotently needs an authenticated, keyed and fingerprinted request");
  const claim = await claimKey(db, company.id, key, fingerprint, LOCK_MS);
  if (claim.state !== "claimed") {
    if (claim.fingerprint !== fingerprint) throw keyReuse();
    if (claim.state === "running") throw inProgress();
    ctx.replayed = true;
    return { status: claim.response.status, body: JSON.parse(claim.response.body), headers: replayHeaders(claim.response) };
  }
  const { owner } = claim;
  try {
    return await execute(async (tx, result) => {
      if (!(await completeKey(tx, company.id, key, owner, storedSuccess(result)))) throw new Superseded();
    });
  } catch (error) {
    if (error instanceof Superseded) throw inProgress();
    try {
      if (error instanceof ApiError && STORED_FAILURES.has(error.status)) {
        await completeKey(db, company.id, key, owner, storedFailure(error, ctx.requestId));
      } else {
        await releaseKey(db, company.id, key, owner);
      }
    } catch (cleanup) {
      // The marker then expires after LOCK_MS and the retry runs; nothing was written.
      log.warn("could not settle an idempotency key", { request_id: ctx.requestId, error: String(cleanup) });
    }
    throw error;
  }
}
