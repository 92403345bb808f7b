// Runs one write operation in one transaction; the seam where idempotency wraps writes.
import type { Database, Transaction } from "../db/client.ts";
import type { RequestContext } from "../http/request-context.ts";
import { runIdempotently } from "./idempotency.ts";

export interface WriteResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type WriteOperation = (tx: Transaction) => Promise<WriteResult>;

/**
 * READ COMMITTED: every check reads the latest commits, while the row locks taken on the
 * way (the company row for quotas, the record itself for updates) order competing writes.
 * With an Idempotency-Key the stored result is written in the same transaction as the write.
 */
export async function executeWrite(db: Database, ctx: RequestContext, operation: WriteOperation): Promise<WriteResult> {
  if (ctx.idempotencyKey === undefined) return transact(db, operation);
  return runIdempotently(db, ctx, (complete) => transact(db, async (tx) => {
    const result = await operation(tx);
    await complete(tx, result);
    return result;
  }));
}

const ATTEMPTS = 3;
// ER_LOCK_DEADLOCK and ER_LOCK_WAIT_TIMEOUT: the transaction was rolled back whole, so
// running it again is safe and is what the client would otherwise have to do.
const RETRYABLE = new Set([1213, 1205]);

function isRetryable(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  if ("errno" in error && RETRYABLE.has(error.errno as number)) return true;
  return "cause" in error && isRetryable(error.cause);
}

async function transact(db: Database, operation: WriteOperation): Promise<WriteResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(operation, { isolationLevel: "read committed" });
    } catch (error) {
      if (attempt >= ATTEMPTS || !isRetryable(error)) throw error;
    }
  }
}
