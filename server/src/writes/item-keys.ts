// Batch item keys (docs/writes-and-retries.md): an item written under a key binds the key to the
// item (its resource, what the batch does with it (create, upsert, update) and its body, key order
// ignored) and to its result, in the batch's transaction, for 24 hours. A later batch of any
// composition that carries the key again gets the stored result back instead of a second write;
// another item under the key is refused.
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Executor } from "../db/client.ts";
import { runStatement, sqlRows } from "../db/sql.ts";
import { rowsStatement, type Statement } from "../db/write-transaction.ts";
import { canonicalJson } from "./fingerprint.ts";
import { REPLAY_WINDOW_HOURS } from "./idempotency-store.ts";

export type ItemAction = "created" | "updated" | "unchanged" | "restored";

export interface BoundKey {
  fingerprint: string;
  status: number;
  id: number;
  action: ItemAction;
  /** Bound longer ago than the replay window: free again (its row is replaced). */
  expired: boolean;
}

export interface NewBinding {
  key: string;
  fingerprint: string;
  status: number;
  id: number;
  action: ItemAction;
}

/** What a batch does with its items: create them, upsert them by external id, or update records by id. */
export type ItemKind = "create" | "upsert" | "update" | "restore";

/** What an item key is bound to: the resource, what the batch does, and the item's body. */
export function itemFingerprint(resource: string, kind: ItemKind, body: unknown): string {
  // Creates and upserts keep the fingerprints their keys were bound with before updates by id came.
  const does = kind === "update" || kind === "restore" ? kind : kind === "upsert";
  return createHash("sha256")
    .update(canonicalJson([resource, does, body ?? null]))
    .digest("hex");
}

/** The keys already bound among `keys`, with what each is bound to. */
export function boundItemKeys(
  companyId: number,
  keys: readonly string[],
): { statement: Statement; read(rows: Record<string, unknown>[]): Map<string, BoundKey> } {
  return {
    statement: {
      text: `SELECT item_key, fingerprint, status_code, record_id, action,
        created_at <= NOW(3) - INTERVAL ${REPLAY_WINDOW_HOURS} HOUR AS expired
        FROM batch_item_keys WHERE company_id = ? AND item_key IN (?)`,
      values: [companyId, keys],
    },
    read: (rows) =>
      new Map(
        rows.map((row) => [
          Buffer.isBuffer(row.item_key) ? row.item_key.toString("latin1") : String(row.item_key),
          {
            fingerprint: String(row.fingerprint),
            status: Number(row.status_code),
            id: Number(row.record_id),
            action: row.action as ItemAction,
            expired: Number(row.expired) === 1,
          },
        ]),
      ),
  };
}

/** Binds the keys of the items written (after their expired rows, if any, are dropped). */
export function bindItemKeys(
  companyId: number,
  bindings: readonly NewBinding[],
  expired: readonly string[],
): Statement[] {
  const statements: Statement[] = [];
  if (expired.length > 0) {
    statements.push({
      text:
        `DELETE FROM batch_item_keys WHERE company_id = ? AND item_key IN (?) AND ` +
        `created_at <= NOW(3) - INTERVAL ${REPLAY_WINDOW_HOURS} HOUR`,
      values: [companyId, expired],
    });
  }
  if (bindings.length > 0) {
    const rows = bindings.map((binding) => [
      companyId,
      binding.key,
      binding.fingerprint,
      binding.status,
      binding.id,
      binding.action,
    ]);
    statements.push(
      rowsStatement(
        "INSERT INTO batch_item_keys (company_id, item_key, fingerprint, status_code, " +
          "record_id, action) VALUES ",
        sqlRows(rows),
      ),
    );
  }
  return statements;
}

/** Deletes item keys past the replay window, in batches so no statement holds locks for long. */
export async function purgeExpiredItemKeys(db: Executor, batch = 1000): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await runStatement(
      db,
      sql`
      DELETE FROM batch_item_keys WHERE created_at <= NOW(3) - INTERVAL ${REPLAY_WINDOW_HOURS} HOUR
        LIMIT ${batch}`,
    );
    total += result.affectedRows;
    if (result.affectedRows < batch) return total;
  }
}
