// Whether a company has a row of a company table by its id, live or deleted: what settles that a
// path id names one of the caller's records before a token without the scope is told 403.
import { sql } from "drizzle-orm";
import { selectRows } from "./sql.ts";
import type { MySqlTable } from "drizzle-orm/mysql-core";
import type { Database } from "./client.ts";

export async function companyRowExists(
  db: Database,
  table: MySqlTable,
  companyId: number,
  id: number,
): Promise<boolean> {
  const rows = await selectRows<unknown>(
    db,
    sql`SELECT 1 AS found FROM ${table} WHERE company_id = ${companyId} AND id = ${id} LIMIT 1`,
  );
  return rows.length > 0;
}
