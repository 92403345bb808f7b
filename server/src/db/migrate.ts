// Applies the committed drizzle migrations over one dedicated connection, holding a named
// lock so that servers starting together on one database do not migrate twice.
import { join } from "node:path";
import mysql from "mysql2/promise";
import { drizzle } from "drizzle-orm/mysql2";
import { migrate } from "drizzle-orm/mysql2/migrator";

const MIGRATIONS = join(import.meta.dir, "..", "..", "drizzle");

export async function migrateDatabase(url: string): Promise<void> {
  const connection = await mysql.createConnection({ uri: url, timezone: "Z" });
  try {
    await connection.query("SELECT GET_LOCK('erp_migrate', 120)");
    await migrate(drizzle(connection), { migrationsFolder: MIGRATIONS });
    await connection.query("SELECT RELEASE_LOCK('erp_migrate')");
  } finally {
    await connection.end();
  }
}
