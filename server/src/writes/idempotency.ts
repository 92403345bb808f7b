// Idempotency keys on writes (docs/writes-and-retries.md): their format, the replay of a stored outcome, and how
// a duplicate that arrives while the first request still runs is recognised.
import type { GuardedPool } from "../db/pool.ts";
import { selectUncommitted } from "../db/sql.ts";
import { idempotencyKeyReuse, invalidIdempotencyKey } from "../refusals/catalogue.ts";
import type { StoredOutcome } from "./idempotency-store.ts";

const KEY_FORMAT = /^[\x20-\x7e]{1,255}$/;

/** 400 unless the key is 1–255 printable ASCII characters. */
export function checkIdempotencyKey(key: string | undefined): void {
  if (key === undefined || KEY_FORMAT.test(key)) return;
  throw invalidIdempotencyKey();
}

export interface Replay<B> {
  status: number;
  body: B;
  headers: Record<string, string>;
}

/**
 * The stored outcome as the answer to a retry, or 409 when the key was bound to another request.
 * `B` is the body the request's answer had: the same fingerprint is the same operation.
 */
export function replay<B>(stored: StoredOutcome, fingerprint: string): Replay<B> {
  if (stored.fingerprint !== fingerprint) throw idempotencyKeyReuse();
  return {
    status: stored.response.status,
    body: JSON.parse(stored.response.body) as B,
    headers: { ...stored.response.headers, "idempotent-replayed": "true" },
  };
}

/**
 * True when another transaction has inserted the key's outcome and not committed yet: the key's
 * request is still running. Read uncommitted, for this one statement, is the only way to see it.
 */
export async function keyInFlight(
  writer: GuardedPool,
  companyId: number,
  key: string,
): Promise<boolean> {
  const rows = await selectUncommitted(
    writer,
    "SELECT 1 AS found FROM idempotency_keys WHERE company_id = ? AND idempotency_key = ?",
    [companyId, key],
  );
  return rows.length > 0;
}
