// The idempotency_keys table: the stored outcome of each keyed write that succeeded, in MySQL so
// that every server process (and every cluster node) sees the same keys. The outcome is inserted
// by the write's own commit (writes/execute-write.ts), so the two exist together or not at all.
import { sql } from "drizzle-orm";
import type { Executor } from "../db/client.ts";
import { executePrepared, runStatement } from "../db/sql.ts";
import type { Statement } from "../db/write-transaction.ts";

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

/** The outcome stored under a key within the replay window, if any. */
export async function readOutcome(
  db: Executor,
  companyId: number,
  key: string,
): Promise<StoredOutcome | undefined> {
  const rows = await executePrepared<
    { fingerprint: string; status_code: number; response_headers: string; response_body: string }[]
  >(
    db,
    `
    SELECT fingerprint, status_code, response_headers, response_body FROM idempotency_keys
    WHERE company_id = ? AND idempotency_key = ? AND created_at > NOW(3) - INTERVAL ${REPLAY_WINDOW_HOURS} HOUR`,
    [companyId, key],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    fingerprint: row.fingerprint,
    response: {
      status: row.status_code,
      headers: JSON.parse(row.response_headers) as Record<string, string>,
      body: row.response_body,
    },
  };
}

/** The INSERT of an outcome; the first statement of its write's commit. */
export function storeOutcome(
  companyId: number,
  key: string,
  fingerprint: string,
  response: StoredResponse,
): Statement {
  return {
    text: `INSERT INTO idempotency_keys (company_id, idempotency_key, fingerprint, status_code,
        response_headers, response_body, created_at)
      VALUES (?, ?, ?, ?, ?, ?, NOW(3))`,
    values: [
      companyId,
      key,
      fingerprint,
      response.status,
      JSON.stringify(response.headers),
      response.body,
    ],
  };
}

/** The read that finds the outcome `storeOutcome` inserts, once its commit committed. */
export function storedOutcomeProbe(companyId: number, key: string, fingerprint: string): Statement {
  return {
    text: `SELECT 1 FROM idempotency_keys WHERE company_id = ? AND idempotency_key = ? AND fingerprint = ?
      AND created_at > NOW(3) - INTERVAL ${REPLAY_WINDOW_HOURS} HOUR`,
    values: [companyId, key, fingerprint],
  };
}

/** Drops the key's row if it is past the replay window, so the key can be bound again. */
export async function dropExpiredOutcome(
  db: Executor,
  companyId: number,
  key: string,
): Promise<boolean> {
  const result = await runStatement(
    db,
    sql`
    DELETE FROM idempotency_keys WHERE company_id = ${companyId} AND idempotency_key = ${key}
      AND created_at <= NOW(3) - INTERVAL ${REPLAY_WINDOW_HOURS} HOUR`,
  );
  return result.affectedRows > 0;
}

/** Deletes rows past the replay window, in batches so no statement holds locks for long. */
export async function purgeExpiredKeys(db: Executor, batch = 1000): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await runStatement(
      db,
      sql`
      DELETE FROM idempotency_keys WHERE created_at <= NOW(3) - INTERVAL ${REPLAY_WINDOW_HOURS} HOUR LIMIT ${batch}`,
    );
    total += result.affectedRows;
    if (result.affectedRows < batch) return total;
  }
}
