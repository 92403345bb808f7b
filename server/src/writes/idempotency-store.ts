// The idempotency_keys table: claims, in-flight markers and stored outcomes, all in MySQL so
// that every server process on the database sees the same keys.
import { sql } from "drizzle-orm";
import type { ResultSetHeader } from "mysql2";
import type { Executor } from "../db/client.ts";
import { isDuplicateKey } from "./checks.ts";

/** How long a completed result is replayed; older rows count as absent and are purged. */
export const REPLAY_WINDOW_HOURS = 24;

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  /** The exact body bytes that were sent the first time. */
  body: string;
}

export type Claim =
  | { state: "claimed"; owner: string }
  | { state: "completed"; fingerprint: string; response: StoredResponse }
  | { state: "running"; fingerprint: string };

interface KeyRow {
  fingerprint: string;
  owner: string;
  status_code: number | null;
  response_headers: string | null;
  response_body: string | null;
  locked: number;
  expired: number;
}

const affected = (result: unknown): number => (result as [ResultSetHeader])[0].affectedRows;

async function readKey(db: Executor, companyId: number, key: string): Promise<KeyRow | undefined> {
  const [rows] = await db.execute(sql`
    SELECT fingerprint, owner, status_code, response_headers, response_body,
      locked_until > NOW(3) AS locked,
      created_at <= NOW(3) - INTERVAL ${REPLAY_WINDOW_HOURS} HOUR AS expired
    FROM idempotency_keys WHERE company_id = ${companyId} AND idempotency_key = ${key}`) as unknown as [KeyRow[]];
  return rows[0];
}

/**
 * Claims a key for one run. Each step is its own autocommit statement, so a duplicate sees the
 * marker at once: a fresh key is inserted; an expired one (past the replay window) is deleted
 * and claimed anew; a marker whose lock ran out (its process died) is taken over when the
 * fingerprint matches, by a conditional update that exactly one contender wins.
 */
export async function claimKey(db: Executor, companyId: number, key: string, fingerprint: string, lockMs: number): Promise<Claim> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const owner = crypto.randomUUID();
    try {
      await db.execute(sql`
        INSERT INTO idempotency_keys (company_id, idempotency_key, fingerprint, owner, locked_until, created_at)
        VALUES (${companyId}, ${key}, ${fingerprint}, ${owner}, NOW(3) + INTERVAL ${lockMs * 1000} MICROSECOND, NOW(3))`);
      return { state: "claimed", owner };
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
    const row = await readKey(db, companyId, key);
    if (!row) continue;
    if (Number(row.expired)) {
      await db.execute(sql`
        DELETE FROM idempotency_keys WHERE company_id = ${companyId} AND idempotency_key = ${key}
          AND owner = ${row.owner} AND created_at <= NOW(3) - INTERVAL ${REPLAY_WINDOW_HOURS} HOUR`);
      continue;
    }
    if (row.status_code !== null) {
      const response = { status: row.status_code, headers: JSON.parse(row.response_headers ?? "{}") as Record<string, string>, body: row.response_body ?? "" };
      return { state: "completed", fingerprint: row.fingerprint, response };
    }
    if (Number(row.locked) || row.fingerprint !== fingerprint) {
      return { state: "running", fingerprint: row.fingerprint };
    }
    const takeover = await db.execute(sql`
      UPDATE idempotency_keys SET owner = ${owner}, locked_until = NOW(3) + INTERVAL ${lockMs * 1000} MICROSECOND
      WHERE company_id = ${companyId} AND idempotency_key = ${key} AND owner = ${row.owner}
        AND status_code IS NULL AND locked_until <= NOW(3)`);
    if (affected(takeover) === 1) return { state: "claimed", owner };
  }
  return { state: "running", fingerprint };
}

/**
 * Stores the outcome, only while `owner` still holds the marker. Run inside the write's own
 * transaction, the write and its result commit together or not at all; false means another
 * process took the key over, and the caller must roll back.
 */
export async function completeKey(db: Executor, companyId: number, key: string, owner: string, response: StoredResponse): Promise<boolean> {
  const result = await db.execute(sql`
    UPDATE idempotency_keys
    SET status_code = ${response.status}, response_headers = ${JSON.stringify(response.headers)},
      response_body = ${response.body}, locked_until = NOW(3)
    WHERE company_id = ${companyId} AND idempotency_key = ${key} AND owner = ${owner} AND status_code IS NULL`);
  return affected(result) === 1;
}

/** Drops an unfinished marker so a retry runs at once; a stored outcome is never touched. */
export async function releaseKey(db: Executor, companyId: number, key: string, owner: string): Promise<void> {
  await db.execute(sql`
    DELETE FROM idempotency_keys
    WHERE company_id = ${companyId} AND idempotency_key = ${key} AND owner = ${owner} AND status_code IS NULL`);
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
