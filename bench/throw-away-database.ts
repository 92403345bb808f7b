// A bench leg on a throw-away database: on the database server the bench finds (BENCH_DATABASE_URL,
// else as `bun run test` does) when run alone, or on the one `bun run bench` already found; migrated,
// handed to the leg, then dropped.
import { connectDatabase, type DatabaseHandle, migrateDatabase } from "@erp/server/admin";
import {
  createDatabase,
  dropDatabase,
  provisionDatabaseServer,
  withDatabase,
} from "../scripts/lib/provision.ts";
import { spawnServer } from "./spawn-server.ts";

export async function withThrowAwayDatabase(
  prefix: string,
  leg: (url: string) => Promise<void>,
): Promise<void> {
  const server = await provisionDatabaseServer({
    envUrl: process.env.BENCH_DATABASE_URL || undefined,
    envName: "BENCH_DATABASE_URL",
  });
  try {
    await onOwnDatabase(server.url, prefix, leg);
  } finally {
    await server.stop();
  }
}

/**
 * A leg of `bun run bench` on a database of its own, on the database server the bench already
 * found (`serverUrl`): created and migrated, handed to the leg, dropped after.
 */
export async function onOwnDatabase<T>(
  serverUrl: string,
  prefix: string,
  leg: (url: string) => Promise<T>,
): Promise<T> {
  const name = `${prefix}_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`;
  try {
    await createDatabase(serverUrl, name);
    const url = withDatabase(serverUrl, name);
    await migrateDatabase(url);
    return await leg(url);
  } finally {
    await dropDatabase(serverUrl, name).catch((error) =>
      console.error(`could not drop ${name}: ${error}`),
    );
  }
}

/**
 * A leg run alone (`bun bench/<leg>.ts`): a throw-away database, a server of ours on it and a
 * handle to it; prints what the leg reports, then stops the server and closes the handle.
 */
export async function runLegAlone(
  prefix: string,
  leg: (db: DatabaseHandle, baseUrl: string) => Promise<string>,
): Promise<void> {
  await withThrowAwayDatabase(prefix, async (url) => {
    const server = await spawnServer("server/src/main.ts", url);
    const db = connectDatabase(url, { connectionLimit: 2 });
    try {
      console.log(await leg(db, server.baseUrl));
    } finally {
      server.process.kill();
      await server.process.exited;
      await db.close();
    }
  });
}
