// Starts the server: migrate, seed a demo company on an empty database, listen on PORT.
import { count } from "drizzle-orm";
import { createCompany } from "./admin/companies.ts";
import { buildApp } from "./app.ts";
import { CompanyCache } from "./auth/company-cache.ts";
import { RateLimiter } from "./auth/rate-limit.ts";
import { envMilliseconds, loadConfig } from "./base/config.ts";
import { connectDatabase, type Database } from "./db/client.ts";
import { withDatabaseBudget } from "./db/deadline.ts";
import { databaseErrorKind } from "./db/errors.ts";
import { migrateDatabase } from "./db/migrate.ts";
import type { ServerFacts } from "./db/server-check.ts";
import { companies } from "./db/schema.ts";
import { startHousekeeping } from "./housekeeping.ts";
import { log, setLogLevel } from "./base/log.ts";
import { lastResort } from "./http/errors.ts";
import { routableRequest } from "./http/routable-request.ts";
import { UsageMeter } from "./metering/usage-meter.ts";
import { FeedWaiters } from "./events/feed-waiters.ts";
import { allowHoldingOpen } from "./http/hold-open.ts";
import { WebhookDispatcher } from "./webhooks/dispatcher.ts";
import { observeRequests } from "./http/observe-requests.ts";
import { listenForMetrics } from "./telemetry/metrics-listener.ts";
import { readLogFormat } from "./telemetry/request-log.ts";
import { startTracing } from "./telemetry/tracing.ts";
import { registerServerGauges } from "./server-gauges.ts";
import { ADDONS } from "./resources/registry.ts";
import { LinkSigner } from "./attachments/links.ts";
import { openStore } from "./attachments/open-store.ts";
import { startWarnings } from "./attachments/start-warnings.ts";

const config = loadConfig();
setLogLevel(config.logLevel);
const logFormat = readLogFormat(process.env.LOG_FORMAT);
// What the database server needs of each connection, found while migrating (db/server-check.ts).
const facts = await migrateWhenReachable(config.databaseUrl);
const database = connectDatabase(config.databaseUrl, facts);

/** A server started before its database waits for it (up to a minute) instead of dying. */
async function migrateWhenReachable(url: string): Promise<ServerFacts> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await migrateDatabase(url);
    } catch (error) {
      if (databaseErrorKind(error) !== "unavailable" || Date.now() > deadline) throw error;
      log.warn("database not reachable yet; retrying", { code: (error as { code?: string }).code });
      await Bun.sleep(1000);
    }
  }
}

async function seedDemoCompany(db: Database): Promise<string | undefined> {
  const [row] = await db.select({ total: count() }).from(companies);
  if (Number(row?.total ?? 0) > 0) return undefined;
  const demo = await createCompany(db, {
    name: "Demo Construction Co.",
    plan: "enterprise",
    addons: [...ADDONS],
  });
  return demo.token;
}

// Counters reach the database within a second; ERP_USAGE_FLUSH_MS changes that (tests).
const meter = new UsageMeter(database.db, envMilliseconds("ERP_USAGE_FLUSH_MS", 1000));
meter.start();
// Attachments' bytes: a directory of this machine unless ATTACHMENTS_STORE names a shared store.
const attachments = openStore();
const links = new LinkSigner(process.env.ATTACHMENT_LINK_SECRETS);
for (const warning of await startWarnings(database.db, config.databaseUrl, attachments, links))
  log.warn(warning);
const stopHousekeeping = startHousekeeping(database.db, attachments);
const limiter = new RateLimiter(database.db);
limiter.start();
const waiters = new FeedWaiters(database.db);
// Hears of revoked tokens once a second and writes when tokens were last used.
const tokens = new CompanyCache(database.db);
tokens.start();
const app = buildApp({
  database,
  meter,
  limiter,
  waiters,
  companies: tokens,
  attachments,
  links,
});
// Every process delivers webhooks; leases in the database keep one process per delivery.
const webhooks = new WebhookDispatcher(database.db);
webhooks.start();
const demoToken =
  process.env.ERP_SKIP_DEMO === "1" ? undefined : await seedDemoCompany(database.db);
/** The request Bun received, for the few the app sees under another URL (routable-request.ts). */
const received = new WeakMap<Request, Request>();
const stopTracing = await startTracing();
registerServerGauges(database);
const observe = observeRequests(app.routes, logFormat);
// Request lines wait up to 50 ms to be written together; a process that dies writes them first.
process.on("exit", () => observe.flush());
const server = Bun.serve({
  port: config.port,
  hostname: config.host,
  // Never Bun's development error page (source lines and paths) to a client.
  development: false,
  // No runtime limit: Bun's would answer a bare 413 (no problem body) before the app sees the
  // request. readJsonBody refuses a body over 1 MiB by its Content-Length or while it streams
  // in, with the problem body; a body no route reads is never buffered.
  maxRequestBodySize: Number.POSITIVE_INFINITY,
  // Each request waits at most its budget on the database, whatever stage it is in.
  fetch: (request) => {
    const routable = routableRequest(request);
    if (routable !== request) received.set(routable, request);
    // The app's compiled handler itself: `app.handle` is an async function around it, one more
    // promise per request.
    return observe(routable, (usage) =>
      withDatabaseBudget(() => app.fetch(routable), undefined, usage),
    );
  },
  error: (error) => lastResort(error),
});
allowHoldingOpen((request, seconds) => server.timeout(received.get(request) ?? request, seconds));
const metrics = listenForMetrics(process.env.METRICS_LISTEN);
// Before the line below: a harness that waits for it has read this one (METRICS_LISTEN=…:0).
if (metrics) console.log(`metrics: ${metrics.url}`);
const url = `http://localhost:${server.port}`;
// Test harnesses read this exact line to learn the port when PORT=0.
console.log(`listening on ${url}`);
console.log(`docs: ${url}/v1/docs`);

if (demoToken) console.log(`demo company token (shown once): ${demoToken}`);

/** How long shutdown waits for in-flight requests before it stops waiting. */
const DRAIN_MS = 20_000;

let stopping = false;
/** Stop accepting, let in-flight requests finish, write the usage counters, close the pool. */
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info("shutting down", { signal });
  stopHousekeeping();
  // Long-polls are answered (empty) now rather than holding the drain for up to 30 s.
  waiters.close();
  const drained = await Promise.race([
    server.stop().then(() => true),
    Bun.sleep(DRAIN_MS).then(() => false),
  ]);
  if (!drained) log.warn("in-flight requests still running at shutdown", { waited_ms: DRAIN_MS });
  await webhooks.stop();
  metrics?.stop();
  observe.flush();
  await stopTracing?.();
  await meter.close();
  await limiter.stop();
  await tokens.stop();
  await database.close();
  process.exit(drained ? 0 : 1);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
