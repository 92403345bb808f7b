// Deleted records are kept 90 days (docs/concepts.md, "Deletes"): long enough to restore a mistake
// found late, then removed for good. A soft delete sets updated_at to deleted_at and nothing writes
// a deleted row but a restore (which clears deleted_at), so a record deleted before the cutoff has
// its updated_at before it too: each company's rows are found through its (company_id, updated_at,
// deleted_at) index, never by scanning the table. A deleted lookup (a trade) stays while any record
// still names it, so those records keep showing it as deleted; a lookup table is a company's few
// names, read through its primary key.
import { getTableName, type SQL, sql } from "drizzle-orm";
import type { Executor } from "../db/client.ts";
import { runStatement, selectRows } from "../db/sql.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { LOOKUPS, RESOURCES, SUB_RESOURCES } from "../resources/registry.ts";
import { column, hasSoftDelete } from "../resources/store.ts";

export const DELETED_KEPT_DAYS = 90;

/** Removes the records deleted more than 90 days ago, one company and table at a time, in bounded batches. */
export async function purgeDeletedRecords(db: Executor, batch = 5_000): Promise<number> {
  const companies = await selectRows<{ id: number }>(db, sql`SELECT id FROM companies`);
  const tables = [...RESOURCES, ...SUB_RESOURCES, ...LOOKUPS].filter((def) =>
    hasSoftDelete(def.table),
  );
  let total = 0;
  for (const { id } of companies) {
    for (const def of tables) {
      const table = getTableName(def.table);
      let purged = 0;
      for (;;) {
        const result = await runStatement(
          db,
          sql`DELETE FROM ${sql.raw(`\`${table}\``)} WHERE company_id = ${id}
            AND updated_at < NOW(3) - INTERVAL ${sql.raw(String(DELETED_KEPT_DAYS))} DAY
            AND deleted_at < NOW(3) - INTERVAL ${sql.raw(String(DELETED_KEPT_DAYS))} DAY
            ${namedByNone(def)} LIMIT ${batch}`,
        );
        total += result.affectedRows;
        purged += result.affectedRows;
        if (result.affectedRows < batch) break;
      }
      if (purged > 0 && Object.hasOwn(def.table, "custom_fields"))
        await purgeCustomValues(db, id, def);
    }
  }
  return total;
}

/** The custom field values (db/schema.ts custom_field_values) of the company's records purged from `def`. */
async function purgeCustomValues(db: Executor, companyId: number, def: ResourceDefinition) {
  await runStatement(
    db,
    sql`DELETE v FROM custom_field_values v JOIN custom_fields f ON f.company_id = v.company_id
      AND f.id = v.field_id AND f.resource = ${def.name}
      LEFT JOIN ${sql.raw(`\`${getTableName(def.table)}\``)} r ON r.company_id = v.company_id
      AND r.id = v.record_id WHERE v.company_id = ${companyId} AND r.id IS NULL`,
  );
}

/** For a lookup: the condition that no record of its dependents (live or deleted) names the row. */
function namedByNone(def: ResourceDefinition): SQL {
  if (!def.lookup) return sql``;
  const table = getTableName(def.table);
  return sql.join(
    def.dependents.map(
      ({ resource, column: name }) =>
        sql`AND NOT EXISTS (SELECT 1 FROM ${sql.raw(`\`${getTableName(resource.table)}\``)} d
          WHERE d.company_id = ${sql.raw(`\`${table}\``)}.company_id
          AND d.${sql.raw(`\`${column(resource.table, name).name}\``)} = ${sql.raw(`\`${table}\``)}.id)`,
    ),
    sql` `,
  );
}
