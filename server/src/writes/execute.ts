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
  const options = { isolationLevel: "read committed" } as const;
  if (ctx.idempotencyKey === undefined) return db.transaction(operation, options);
  return runIdempotently(db, ctx, (complete) => db.transaction(async (tx) => {
    const result = await operation(tx);
    await complete(tx, result);
    return result;
  }, options));
}
