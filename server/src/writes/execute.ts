// Runs one write operation in one transaction; the seam where idempotency wraps writes.
import type { Database, Transaction } from "../db/client.ts";
import type { RequestContext } from "../http/request-context.ts";

export interface WriteResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type WriteOperation = (tx: Transaction) => Promise<WriteResult>;

/**
 * READ COMMITTED: every check reads the latest commits, while the row locks taken on the
 * way (the company row for quotas, the record itself for updates) order competing writes.
 */
export async function executeWrite(db: Database, _ctx: RequestContext, operation: WriteOperation): Promise<WriteResult> {
  return db.transaction(operation, { isolationLevel: "read committed" });
}
