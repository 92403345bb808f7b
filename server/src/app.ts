// Builds the Elysia app from its plugins; main.ts only listens.
import { Elysia } from "elysia";
import { admission } from "./auth/admission.ts";
import { CompanyCache } from "./auth/company-cache.ts";
import { RateLimiter } from "./auth/rate-limit.ts";
import type { Database } from "./db/client.ts";
import { cors } from "./http/cors.ts";
import { errorHandler } from "./http/errors.ts";
import { contextOf, requestContext } from "./http/request-context.ts";
import { methodTable } from "./http/routes.ts";
import { meterRequests, type UsageMeter } from "./metering/usage-meter.ts";
import { usageRoutes } from "./metering/usage-routes.ts";
import { ALL_RESOURCES } from "./resources/registry.ts";
import { appendEvents } from "./events/event-log.ts";
import { eventRoutes } from "./routes/event-routes.ts";
import { webhookRoutes } from "./routes/webhook-routes.ts";
import { resourceRoutes } from "./routes/resource-routes.ts";
import { collectionRoutes } from "./surfaces/collection.ts";
import { docsRoutes } from "./surfaces/docs.ts";
import { healthRoutes } from "./surfaces/health.ts";
import { openApiRoutes } from "./surfaces/openapi.ts";


export interface AppDeps {
  db: Database;
  meter: UsageMeter;
  /** Token lookups; one per process, so its few seconds of memory are shared by every request. */
  companies?: CompanyCache;
  /** Rate limits; one per process, started (and stopped) by its owner. */
  limiter?: RateLimiter;
}

export function buildApp(deps: AppDeps) {
  const companies = deps.companies ?? new CompanyCache(deps.db);
  const limiter = deps.limiter ?? new RateLimiter(deps.db);
  const routeDeps = { db: deps.db, admit: admission({ companies, limiter }, { metered: true }), changeLog: appendEvents };
  const methods = methodTable();
  const app = new Elysia({ normalize: false })
    .use(errorHandler(methods.lookup))
    .use(requestContext)
    .use(cors)
    .use(meterRequests(deps.meter))
    // A replay costs the company nothing: neither a request of its rate limit nor of its meter.
    // Given back before the answer leaves, so the client's next request already sees it.
    .onAfterHandle({ as: "global" }, ({ request }) => {
      const ctx = contextOf(request);
      if (ctx.replayed && ctx.companyId !== undefined) limiter.refund(ctx.companyId);
    })
    .use(healthRoutes(deps.db))
    .use(usageRoutes({ db: deps.db, admit: admission({ companies, limiter }, { metered: false }) }));
  for (const def of ALL_RESOURCES) app.use(resourceRoutes(def, routeDeps));
  app.use(eventRoutes(routeDeps));
  app.use(webhookRoutes(routeDeps));
  // The spec surfaces read the whole app's routes when asked, so they always match what is served.
  app.use(openApiRoutes(app)).use(docsRoutes()).use(collectionRoutes(app));
  methods.load(app.routes);
  return app;
}

export type App = ReturnType<typeof buildApp>;
