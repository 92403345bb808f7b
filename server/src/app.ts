// Builds the Elysia app from its plugins; main.ts only listens.
import { Elysia } from "elysia";
import { admission } from "./auth/admission.ts";
import { rateLimit } from "./auth/rate-limit.ts";
import type { Database } from "./db/client.ts";
import { cors } from "./http/cors.ts";
import { errorHandler } from "./http/errors.ts";
import { requestContext } from "./http/request-context.ts";
import { methodTable } from "./http/routes.ts";
import { meterRequests, type UsageMeter } from "./metering/usage-meter.ts";
import { usageRoutes } from "./metering/usage-routes.ts";
import { crudRoutes, type RouteDeps } from "./resources/crud-routes.ts";
import { lookupRoutes } from "./resources/lookups.ts";
import { RESOURCES, SUB_RESOURCES } from "./resources/registry.ts";
import { collectionRoutes } from "./surfaces/collection.ts";
import { docsRoutes } from "./surfaces/docs.ts";
import { healthRoutes } from "./surfaces/health.ts";
import { openApiRoutes } from "./surfaces/openapi.ts";
import { checkIdempotencyKey } from "./writes/idempotency.ts";
import { idempotencyHooks } from "./writes/idempotency-hooks.ts";

export interface AppDeps {
  db: Database;
  meter: UsageMeter;
}

export function buildApp(deps: AppDeps) {
  const limit = rateLimit(deps.db);
  // Data routes: metered once authenticated, then rate-limited, then the key checked.
  const admit = admission(deps.db, async (company, ctx, headers) => {
    ctx.metered = true;
    await limit(company, ctx, headers);
    checkIdempotencyKey(ctx.idempotencyKey);
  });
  const routeDeps: RouteDeps = { db: deps.db, admit };
  const methods = methodTable();
  const app = new Elysia({ normalize: false })
    .use(idempotencyHooks(deps.db))
    .use(errorHandler(methods.lookup))
    .use(requestContext)
    .use(cors)
    .use(meterRequests(deps.meter))
    .use(healthRoutes(deps.db))
    .use(usageRoutes({ db: deps.db, admit: admission(deps.db, limit) }))
    .use(lookupRoutes(routeDeps));
  for (const def of [...RESOURCES, ...SUB_RESOURCES]) app.use(crudRoutes(def, routeDeps));
  // The spec surfaces read the whole app's routes when asked, so they always match what is served.
  app.use(openApiRoutes(app)).use(docsRoutes()).use(collectionRoutes(app));
  methods.load(app.routes);
  return app;
}

export type App = ReturnType<typeof buildApp>;
