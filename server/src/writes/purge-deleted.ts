// Deleted records are kept 90 days (docs/concepts.md, "Deletes"): long enough to restore a mistake
// found late, then removed for good. A soft delete sets updated_at to deleted_at and nothing writes
// a deleted row but a restore (which clears deleted_at), so a record deleted before the cutoff has
// its updated_at before it too: each company's rows are found through its (company_id, updated_at,
// deleted_at) index, never by scanning the table.
import { getTableName, sql } from "drizzle-orm";
import type { Executor } from "../db/client.ts";
import { runStatement, selectRows } from "../db/sql.ts";
import { RESOURCES, SUB_RESOURCES } from "../resources/registry.ts";
import { hasSoftDelete } from "../resources/store.ts";

export const DELETED_KEPT_DAYS = 90;

/** Removes the records deleted more than 90 days ago, one company and table at a time, in bounded batches. */
export async function purgeDeletedRecords(db: Executor, batch = 5_000): Promise<number> {
  const companies = await selectRows<{ id: number }>(db, sql`SELECT id FROM companies`);
  const tables = [...RESOURCES, ...SUB_RESOURCES]
    .filter((def) => hasSoftDelete(def.table))
    .map((def) => getTableName(def.table));
  let total = 0;
  for (const { id } of companies) {
    for (const table of tables) {
      for (;;) {
        const result = await runStatement(
          db,
          sql`DELETE FROM ${sql.raw(`\`${table}\``)} WHERE company_id = ${id}
            AND updated_at < NOW(3) - INTERVAL ${sql.raw(String(DELETED_KEPT_DAYS))} DAY
            AND deleted_at < NOW(3) - INTERVAL ${sql.raw(String(DELETED_KEPT_DAYS))} DAY LIMIT ${batch}`,
        );
        total += result.affectedRows;
        if (result.affectedRows < batch) break;
      }
    }
  }
  return total;
}
