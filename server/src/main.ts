// Starts the server: migrate, seed a demo company on an empty database, listen on PORT.
import { count } from "drizzle-orm";
import { createCompany } from "./admin/companies.ts";
import { buildApp } from "./app.ts";
import { loadConfig } from "./config.ts";
import { connectDatabase, type Database } from "./db/client.ts";
import { migrateDatabase } from "./db/migrate.ts";
import { companies } from "./db/schema.ts";
import { startHousekeeping } from "./housekeeping.ts";
import { log, setLogLevel } from "./log.ts";

const config = loadConfig();
setLogLevel(config.logLevel);
await migrateDatabase(config.databaseUrl);
const database = connectDatabase(config.databaseUrl);

async function seedDemoCompany(db: Database): Promise<string | undefined> {
  const [row] = await db.select({ total: count() }).from(companies);
  if (Number(row?.total ?? 0) > 0) return undefined;
  const demo = await createCompany(db, { name: "Demo Construction Co.", plan: "pro", addons: ["api", "estimates", "subcontractors", "equipment"] });
  return demo.token;
}

const stopHousekeeping = startHousekeeping(database.db);
const app = buildApp({ db: database.db });
const demoToken = process.env.ERP_SKIP_DEMO === "1" ? undefined : await seedDemoCompany(database.db);
app.listen({ port: config.port, hostname: process.env.HOST ?? "0.0.0.0" });
const url = `http://localhost:${app.server?.port}`;
// Test harnesses read this exact line to learn the port when PORT=0.
console.log(`listening on ${url}`);
console.log(`docs: ${url}/v1/docs`);
if (demoToken) console.log(`demo company token (shown once): ${demoToken}`);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info("shutting down", { signal });
  stopHousekeeping();
  await app.stop();
  await database.close();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
