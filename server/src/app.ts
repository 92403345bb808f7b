// Builds the Elysia app from its plugins; main.ts only listens.
import { Elysia } from "elysia";
import { Admission } from "./auth/admission.ts";
import { CompanyCache } from "./auth/company-cache.ts";
import { RateLimiter } from "./auth/rate-limit.ts";
import { RouteScopes, type RecordOwner } from "./auth/route-scopes.ts";
import { companyRowExists } from "./db/company-rows.ts";
import { apiTokens, customFields, webhookEndpoints } from "./db/schema.ts";
import { LinkSigner } from "./attachments/links.ts";
import { openStore } from "./attachments/open-store.ts";
import { attachmentRowExists } from "./attachments/rows.ts";
import type { AttachmentStore } from "./attachments/store.ts";
import { attachmentRoutes } from "./routes/attachment-routes.ts";
import { tokenRoutes } from "./routes/token-routes.ts";
import { customFieldRoutes } from "./routes/custom-field-routes.ts";
import { authenticate } from "./auth/bearer.ts";
import { type CustomField, readCustomFields } from "./resources/custom-fields.ts";
import type { DatabaseHandle } from "./db/client.ts";
import { IdAllocator } from "./db/ids.ts";
import { GroupCommits } from "./writes/group-commits.ts";
import { WriteTurns } from "./writes/write-turns.ts";
import { outsideReads } from "./writes/outside-reads.ts";
import { cors } from "./http/cors.ts";
import { errorHandler } from "./http/errors.ts";
import { requestContext } from "./http/request-context.ts";
import { methodTable } from "./http/routes.ts";
import type { UsageMeter } from "./metering/usage-meter.ts";
import { usageRoutes } from "./metering/usage-routes.ts";
import { ALL_DEFINITIONS } from "./resources/registry.ts";
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
  /**
   * Token lookups; one per process, so its few seconds of memory are shared by every request,
   * started (and stopped) by its owner: it hears of revocations once a second.
   */
  companies?: CompanyCache;
  /** Rate limits; one per process, started (and stopped) by its owner. */
  limiter?: RateLimiter;
  /** Long-polls of the change feed; one per process, closed by its owner at shutdown. */
  waiters?: FeedWaiters;
  /** Where attachments' bytes are kept (ATTACHMENTS_STORE by default). */
  attachments?: AttachmentStore;
  /** Signs and checks attachment links (ATTACHMENT_LINK_SECRETS by default). */
  links?: LinkSigner;
}

export function buildApp(deps: AppDeps) {
  const { db, reader, writer } = deps.database;
  const companies = deps.companies ?? new CompanyCache(db);
  const limiter = deps.limiter ?? new RateLimiter(db);
  const waiters = deps.waiters ?? new FeedWaiters(db);
  // One id allocator per process: the blocks of ids it reserved are this process's to hand out.
  // One group commit per process: a company's writes wait for its commit in flight here. One
  // rotation of batches' turns per process: a company's flood of batches waits here.
  const store = {
    db,
    outside: outsideReads(reader),
    writer,
    ids: new IdAllocator(reader),
    commits: new GroupCommits(),
    turns: new WriteTurns(),
  };
  // What each route needs of a token, read from the routes once they are all registered.
  const scopes = new RouteScopes();
  const routeDeps = {
    db,
    store,
    admission: new Admission(companies, limiter, scopes, deps.meter),
    waiters,
  };
  const methods = methodTable();
  const app = new Elysia({ normalize: false })
    .use(errorHandler(methods.lookup))
    .use(requestContext)
    .use(cors)
    .use(healthRoutes(db))
    .use(usageRoutes({ db, admission: new Admission(companies, limiter, scopes) }));
  for (const def of ALL_DEFINITIONS) app.use(resourceRoutes(def, routeDeps));
  app.use(eventRoutes(routeDeps));
  app.use(webhookRoutes(routeDeps));
  app.use(customFieldRoutes(routeDeps));
  app.use(tokenRoutes(routeDeps, companies));
  app.use(
    attachmentRoutes({
      ...routeDeps,
      attachments: deps.attachments ?? openStore(),
      links: deps.links ?? new LinkSigner(process.env.ATTACHMENT_LINK_SECRETS),
    }),
  );
  // The spec surfaces read the whole app's routes when asked, so they always match what is served.
  app
    .use(openApiRoutes(app, (request) => companyFieldsOf(companies, db, request)))
    .use(docsRoutes())
    .use(collectionRoutes(app));
  methods.load(app.routes);
  scopes.load(app.routes as never, recordOwners(db));
  return app;
}

/** The records a path id may name, by the collection segment before it (`/v1/workers/:id`). */
function recordOwners(db: AppDeps["database"]["db"]): Record<string, RecordOwner> {
  const owner = (what: string, table: Parameters<typeof companyRowExists>[1]): RecordOwner => ({
    what,
    exists: (companyId, id) => companyRowExists(db, table, companyId, id),
  });
  return {
    ...Object.fromEntries(
      ALL_DEFINITIONS.map((def) => [def.name, owner(def.singular.toLowerCase(), def.table)]),
    ),
    "webhook-endpoints": owner("webhook endpoint", webhookEndpoints),
    "custom-fields": owner("custom field", customFields),
    tokens: owner("token", apiTokens),
    attachments: {
      what: "attachment",
      exists: (companyId, id) => attachmentRowExists(db, companyId, id),
    },
  };
}

export type App = ReturnType<typeof buildApp>;

/** The custom fields of the company whose token a request carries; none without a token (401 for a bad one). */
async function companyFieldsOf(
  companies: CompanyCache,
  db: AppDeps["database"]["db"],
  request: Request,
): Promise<CustomField[] | undefined> {
  if (!request.headers.has("authorization")) return undefined;
  const caller = await authenticate(companies, request);
  return readCustomFields(db, caller.company.id);
}
