// Builds the Elysia app from its plugins; main.ts only listens.
import { Elysia } from "elysia";
import { Admission } from "./auth/admission.ts";
import { CompanyCache } from "./auth/company-cache.ts";
import { RateLimiter } from "./auth/rate-limit.ts";
import type { DatabaseHandle } from "./db/client.ts";
import { IdAllocator } from "./db/ids.ts";
import { GroupCommits } from "./writes/group-commits.ts";
import { cors } from "./http/cors.ts";
import { errorHandler } from "./http/errors.ts";
import { requestContext } from "./http/request-context.ts";
import { methodTable } from "./http/routes.ts";
import type { UsageMeter } from "./metering/usage-meter.ts";
import { usageRoutes } from "./metering/usage-routes.ts";
import { ALL_RESOURCES } from "./resources/registry.ts";
import { FeedWaiters } from "./events/feed-waiters.ts";
import { eventRoutes } from "./routes/event-routes.ts";
import { webhookRoutes } from "./routes/webhook-routes.ts";
import { resourceRoutes } from "./routes/resource-routes.ts";
import { collectionRoutes } from "./surfaces/collection.ts";
import { docsRoutes } from "./surfaces/docs.ts";
import { healthRoutes } from "./surfaces/health.ts";
import { openApiRoutes } from "./surfaces/openapi.ts";

export interface AppDeps {
  database: Pick<DatabaseHandle, "db" | "reader" | "writer">;
  meter: UsageMeter;
  /** Token lookups; one per process, so its few seconds of memory are shared by every request. */
  companies?: CompanyCache;
  /** Rate limits; one per process, started (and stopped) by its owner. */
  limiter?: RateLimiter;
  /** Long-polls of the change feed; one per process, closed by its owner at shutdown. */
  waiters?: FeedWaiters;
}

export function buildApp(deps: AppDeps) {
  const { db, reader, writer } = deps.database;
  const companies = deps.companies ?? new CompanyCache(db);
  const limiter = deps.limiter ?? new RateLimiter(db);
  const waiters = deps.waiters ?? new FeedWaiters(db);
  // One id allocator per process: the blocks of ids it reserved are this process's to hand out.
  // One group commit per process: a company's writes wait for its commit in flight here.
  const store = { db, writer, ids: new IdAllocator(reader), commits: new GroupCommits() };
  const routeDeps = {
    db,
    store,
    admission: new Admission(companies, limiter, deps.meter),
    waiters,
  };
  const methods = methodTable();
  const app = new Elysia({ normalize: false })
    .use(errorHandler(methods.lookup))
    .use(requestContext)
    .use(cors)
    .use(healthRoutes(db))
    .use(usageRoutes({ db, admission: new Admission(companies, limiter) }));
  for (const def of ALL_RESOURCES) app.use(resourceRoutes(def, routeDeps));
  app.use(eventRoutes(routeDeps));
  app.use(webhookRoutes(routeDeps));
  // The spec surfaces read the whole app's routes when asked, so they always match what is served.
  app.use(openApiRoutes(app)).use(docsRoutes()).use(collectionRoutes(app));
  methods.load(app.routes);
  return app;
}

export type App = ReturnType<typeof buildApp>;
