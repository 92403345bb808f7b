// What tools outside the server (the admin CLI, the test harness, the benchmarks) may use to
// administer a database directly: companies, tokens, the pool and migrations.
export { createCompany, recountLiveRecords, type NewCompany } from "./companies.ts";
export { issueToken, revokeToken } from "../auth/tokens.ts";
export { connectDatabase, type DatabaseHandle } from "../db/client.ts";
export { migrateDatabase } from "../db/migrate.ts";
export { ADDONS } from "../resources/registry.ts";
