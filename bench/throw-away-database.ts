// A bench leg run on its own: a throw-away database on the database server the bench finds
// (BENCH_DATABASE_URL, else as `bun run test` does), migrated, handed to the leg, then dropped.
import { migrateDatabase } from "@erp/server/admin";
import {
  createDatabase,
  dropDatabase,
  provisionDatabaseServer,
  withDatabase,
} from "../scripts/lib/provision.ts";

export async function withThrowAwayDatabase(
  prefix: string,
  leg: (url: string) => Promise<void>,
): Promise<void> {
  const server = await provisionDatabaseServer({
    envUrl: process.env.BENCH_DATABASE_URL || undefined,
    envName: "BENCH_DATABASE_URL",
  });
  const name = `${prefix}_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`;
  try {
    await createDatabase(server.url, name);
    const url = withDatabase(server.url, name);
    await migrateDatabase(url);
    await leg(url);
  } finally {
    await dropDatabase(server.url, name).catch((error) =>
      console.error(`could not drop ${name}: ${error}`),
    );
    await server.stop();
  }
}
