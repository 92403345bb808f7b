// `bun run start`: finds or starts a database server, then runs the API server against it.
import path from "node:path";
import { ensureDeps } from "./lib/ensure-deps.ts";

ensureDeps();
const { provisionDatabaseServer, createDatabase, withDatabase } = await import(
  "./lib/provision.ts"
);

const root = path.resolve(import.meta.dir, "..");

// Caught from the start so a Ctrl-C during provisioning still stops a private database.
let interrupted = false;
let server: ReturnType<typeof Bun.spawn> | undefined;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    interrupted = true;
    server?.kill(signal);
  });
}

const envUrl = process.env.DATABASE_URL || undefined;
const db = await provisionDatabaseServer({ envUrl, envName: "DATABASE_URL" });
let code = 130;
try {
  let databaseUrl = envUrl;
  if (!databaseUrl) {
    await createDatabase(db.url, "erp");
    databaseUrl = withDatabase(db.url, "erp");
  }
  if (!interrupted) {
    server = Bun.spawn([process.execPath, "server/src/main.ts"], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ["inherit", "inherit", "inherit"],
    });
    code = await server.exited;
  }
} finally {
  await db.stop();
}
process.exit(code);
