// How many live records of a resource a company has: the meta.total of its list without filters,
// in constant time whatever the company's size. A resource's counter is kept exact by every
// write's own transaction (db/company-counters.ts); a lookup, a company's few names, is counted.
import { getTableName } from "drizzle-orm";
import type { Executor } from "../db/client.ts";
import { liveRecords, type Counted } from "../db/company-counters.ts";
import { executePrepared, unsignedInteger } from "../db/sql.ts";
import type { ResourceDefinition } from "./definition.ts";
import { RESOURCES } from "./registry.ts";
import { hasSoftDelete } from "./store.ts";

/** The counter of a resource: named after it, started from a count of its table when missing. */
export const countedOf = (def: ResourceDefinition): Counted => ({
  name: def.name,
  table: getTableName(def.table),
});

const counted = new Set(RESOURCES);

/** Every unfiltered list's total goes through here, and nothing else counts a whole collection. */
export async function liveTotal(
  db: Executor,
  def: ResourceDefinition,
  companyId: number,
): Promise<number> {
  if (counted.has(def)) return liveRecords(db, countedOf(def), companyId);
  const [row] = await executePrepared<{ total: number | string }[]>(
    db,
    `SELECT COUNT(*) AS total FROM \`${getTableName(def.table)}\` WHERE \`company_id\` = ?` +
      (hasSoftDelete(def.table) ? " AND `deleted_at` IS NULL" : ""),
    [unsignedInteger(companyId)],
  );
  return Number(row?.total ?? 0);
}
