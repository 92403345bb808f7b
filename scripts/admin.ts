// `bun run admin …`: the admin commands against the same database `bun run start` uses.
import path from "node:path";
import { ensureDeps } from "./lib/ensure-deps.ts";

ensureDeps();
const { provisionDatabaseServer, createDatabase, withDatabase } = await import(
  "./lib/provision.ts"
);

const envUrl = process.env.DATABASE_URL || undefined;
const db = await provisionDatabaseServer({ envUrl, envName: "DATABASE_URL" });
let code = 1;
try {
  let databaseUrl = envUrl;
  if (!databaseUrl) {
    await createDatabase(db.url, "erp");
    databaseUrl = withDatabase(db.url, "erp");
  }
  const admin = Bun.spawn(
    [
      process.execPath,
      path.join(import.meta.dir, "../server/src/admin/cli.ts"),
      ...process.argv.slice(2),
    ],
    {
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ["inherit", "inherit", "inherit"],
    },
  );
  code = await admin.exited;
} finally {
  await db.stop();
}
process.exit(code);
