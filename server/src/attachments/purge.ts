// The purge of deleted records (docs/concepts.md, "Deletes") takes their attachments with them:
// each attachment whose record is gone for good loses its bytes in the store, then its row (a
// store that fails leaves the row, and the next round tries again).
import { getTableName, sql } from "drizzle-orm";
import type { Executor } from "../db/client.ts";
import { runStatement, selectRows } from "../db/sql.ts";
import { ATTACHABLE } from "./rows.ts";
import type { AttachmentStore } from "./store.ts";

/** Removes the attachments of purged records, a bounded batch per resource and round; how many. */
export async function purgeOrphanAttachments(
  db: Executor,
  store: AttachmentStore,
  batch = 1_000,
): Promise<number> {
  let total = 0;
  for (const def of ATTACHABLE) {
    const table = sql.raw(`\`${getTableName(def.table)}\``);
    const orphans = await selectRows<{ id: number; company_id: number; object_key: string }>(
      db,
      sql`SELECT a.id, a.company_id, a.object_key FROM attachments a
        WHERE a.resource = ${def.name} AND NOT EXISTS
          (SELECT 1 FROM ${table} r WHERE r.company_id = a.company_id AND r.id = a.record_id)
        LIMIT ${batch}`,
    );
    for (const orphan of orphans) {
      await store.remove(orphan.object_key);
      await runStatement(
        db,
        sql`DELETE FROM attachments WHERE company_id = ${orphan.company_id} AND id = ${orphan.id}`,
      );
      total += 1;
    }
  }
  return total;
}
