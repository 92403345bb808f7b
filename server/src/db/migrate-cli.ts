// `bun server/src/db/migrate-cli.ts`: migrates the database named by DATABASE_URL and exits.
import { migrateDatabase } from "./migrate.ts";

const url = process.env.DATABASE_URL;
if (!url) {
  console.error("DATABASE_URL is not set");
  process.exit(2);
}
await migrateDatabase(url);
