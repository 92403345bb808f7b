// The idempotency_keys table: the stored outcome of each keyed write that succeeded, in MySQL so
// that every server process (and every cluster node) sees the same keys.
import { sql } from "drizzle-orm";
import type { ResultSetHeader } from "mysql2";
import type { Executor } from "../db/client.ts";
import { databaseErrorKind } from "../db/errors.ts";
import { executePrepared } from "../db/statements.ts";

/** How long a completed result is replayed; older rows count as absent and are purged. */
export const REPLAY_WINDOW_HOURS = 24;

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  /** The exact body bytes that were sent the first time. */
  body: string;
}

export interface StoredOutcome {
  fingerprint: string;
  response: StoredResponse;
}

const affected = (result: unknown): number => (result as [ResultSetHeader])[0].affectedRows;

/** The outcome stored under a key within the replay window, if any. */
export async function readOutcome(db: Executor, companyId: number, key: string): Promise<StoredOutcome | undefined> {
  const [rows] = await db.execute(sql`
    SELECT fingerprint, status_code, response_headers, response_body FROM idempotency_keys
    WHERE company_id = ${companyId} AND idempotency_key = ${key}
      AND created_at > NOW(3) - INTERVAL ${REPLAY_WINDOW_HOURS} HOUR`) as unknown as [{ fingerprint: string; status_code: number; response_headers: string; response_body: string }[]];
  const row = rows[0];
  if (!row) return undefined;
  return { fingerprint: row.fingerprint, response: { status: row.status_code, headers: JSON.parse(row.response_headers) as Record<string, string>, body: row.response_body } };
}

export type StoreResult = "stored" | "taken" | "busy";

/**
 * Stores an outcome inside the write's own transaction, so the write and its outcome commit
 * together or not at all. "taken": another request with the key committed first (this
 * transaction must roll back and replay theirs); "busy": that request is still running.
 * A row past the replay window is replaced.
 */
export async function storeOutcome(db: Executor, companyId: number, key: string, fingerprint: string, response: StoredResponse): Promise<StoreResult> {
  const insert = () => executePrepared(db, `
    INSERT INTO idempotency_keys (company_id, idempotency_key, fingerprint, status_code, response_headers, response_body, created_at)
    VALUES (?, ?, ?, ?, ?, ?, NOW(3))`, [companyId, key, fingerprint, response.status, JSON.stringify(response.headers), response.body]);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await insert();
      return "stored";
    } catch (error) {
      const kind = databaseErrorKind(error);
      if (kind === "lock_wait") return "busy";
      if (kind !== "duplicate") throw error;
    }
    const expired = await db.execute(sql`
      DELETE FROM idempotency_keys WHERE company_id = ${companyId} AND idempotency_key = ${key}
        AND created_at <= NOW(3) - INTERVAL ${REPLAY_WINDOW_HOURS} HOUR`);
    if (affected(expired) === 0) return "taken";
  }
  return "taken";
}

/** Deletes rows past the replay window, in batches so no statement holds locks for long. */
export async function purgeExpiredKeys(db: Executor, batch = 1000): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await db.execute(sql`
      DELETE FROM idempotency_keys WHERE created_at <= NOW(3) - INTERVAL ${REPLAY_WINDOW_HOURS} HOUR LIMIT ${batch}`);
    total += affected(result);
    if (affected(result) < batch) return total;
  }
}
