// GET /v1/events (the change feed) and GET /v1/{resource}/{id}/events (one record's history).
import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { and, eq } from "drizzle-orm";
import type { Company } from "../auth/company.ts";
import { readFeed, type FeedPage } from "../events/event-feed.ts";
import { RETENTION_DAYS } from "../events/retention.ts";
import { ADMISSION_ERRORS, mergeErrors, operationDetail } from "../http/operation-docs.ts";
import { limitParam, pageWindow } from "../http/paging.ts";
import { notFound } from "../http/problem.ts";
import { timestampSchema } from "../resources/schemas.ts";
import { described, oneOfParam, parseQuery, patternParam, textParam } from "../http/query.ts";
import { requestContext } from "../http/request-context.ts";
import { readResponse } from "../http/respond.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { RESOURCES, SUB_RESOURCES } from "../resources/registry.ts";
import { column } from "../resources/store.ts";
import { parseId, type RouteDeps } from "./route-context.ts";

/** Resources whose records have events: every collection a client writes. */
const EVENTFUL = [...RESOURCES, ...SUB_RESOURCES];

const TYPE_PATTERN = /^[a-z_]+\.(\*|created|updated|deleted)$/;

const typeParam = described(patternParam(TYPE_PATTERN, "project.created or project.*"), "Only events of this type (`project.created`), or of every action on one resource (`project.*`).");

const afterParam = described(textParam, "An event id, or the `meta.next_cursor` of the previous page: only events after it.");

const EventSchema = Type.Object({
  id: Type.String({ pattern: "^evt_[0-9a-z]{26}$", description: "The event's id; it is also a cursor (`after`).", examples: ["evt_00000000169k3fz0q8x2m7wd5r"] }),
  type: Type.String({ description: "`<resource>.<action>`: project.created, rental.updated, equipment.deleted, …", examples: ["project.created"] }),
  resource: Type.String({ description: "The resource's path segment: projects, workers, …, rentals." }),
  record_id: Type.Integer(),
  data: Type.Object({
    record: Type.Object({}, { additionalProperties: true, description: "The record after the change (for a delete, as it was)." }),
    changes: Type.Optional(Type.Record(Type.String(), Type.Object({ from: Type.Unknown(), to: Type.Unknown() }), { description: "For an update: each changed field." })),
  }, { additionalProperties: false }),
  request_id: Type.String({ description: "The X-Request-Id of the write." }),
  idempotency_key: Type.Union([Type.String(), Type.Null()], { description: "The Idempotency-Key the write carried, if any." }),
  created_at: timestampSchema(),
}, { additionalProperties: false, title: "Event" });

const EventPage = Type.Object({
  data: Type.Array(EventSchema),
  meta: Type.Object({
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: "Pass as `after` for the next page; it stays put when there are no newer events, so polling with it follows the feed." }),
    limit: Type.Integer(),
  }, { additionalProperties: false, title: "EventPageMeta" }),
}, { additionalProperties: false, title: "EventPage" });

const pageOf = (request: Request, page: FeedPage, limit: number): Response =>
  readResponse(request, { data: page.events, meta: { next_cursor: page.nextCursor, limit } });

const visibleResources = (company: Company): string[] => EVENTFUL.filter((def) => company.addons.has(def.addon)).map((def) => def.name);

function feedRoute(deps: RouteDeps) {
  const parsers = {
    after: afterParam,
    limit: limitParam,
    type: typeParam,
    resource: described(oneOfParam(EVENTFUL.map((def) => def.name)), "Only events of this resource."),
  };
  return new Elysia({ name: "events:feed" }).use(requestContext).get("/v1/events", async ({ request, ctx, set }) => {
    const company = await deps.admit(request, ctx, "api", set.headers);
    const query = parseQuery(new URL(request.url), parsers);
    const { limit } = pageWindow(query);
    const visible = visibleResources(company);
    const resources = query.resource ? visible.filter((name) => name === query.resource) : visible;
    const page = await readFeed(deps.db, { companyId: company.id, after: query.after, limit, resources, type: query.type });
    return pageOf(request, page, limit);
  }, {
    detail: operationDetail({
      operationId: "listEvents",
      summary: "The change feed",
      description: `Every committed change of the company's records, in commit order: creates, updates, deletes and rental changes (not dry-runs, replays or writes that changed nothing). Follow \`meta.next_cursor\` (pass it as \`after\`) to see every event exactly once and in order, even while several servers commit at once; polling with the last cursor follows the feed live. Events are kept ${RETENTION_DAYS} days; a cursor older than that is 410 cursor_expired. Events of resources whose add-on the company lacks are not shown.`,
      tags: ["events"],
      query: parsers,
      headers: ["IfNoneMatch"],
      responses: {
        200: { description: "A page of events, oldest first.", headers: ["ETag"] },
        304: { description: "Not Modified: the ETag sent in If-None-Match still matches; empty body.", headers: ["ETag"] },
      },
      errors: mergeErrors(ADMISSION_ERRORS, { 400: ["invalid_query"], 410: ["cursor_expired"] }),
    }),
    response: { 200: EventPage },
  });
}

/** True when the company has (or had: deleted records keep their history) this record. */
async function everExisted(deps: RouteDeps, def: ResourceDefinition, companyId: number, id: number): Promise<boolean> {
  const rows = await deps.db.select({ id: column(def.table, "id") }).from(def.table)
    .where(and(eq(column(def.table, "company_id"), companyId), eq(column(def.table, "id"), id))).limit(1);
  return rows.length > 0;
}

function historyRoute(def: ResourceDefinition, deps: RouteDeps) {
  const parsers = { after: afterParam, limit: limitParam };
  const what = def.singular.toLowerCase();
  return new Elysia({ name: `events:${def.name}` }).use(requestContext).get(`/v1/${def.name}/:id/events`, async ({ request, ctx, set, params }) => {
    const company = await deps.admit(request, ctx, def.addon, set.headers);
    const query = parseQuery(new URL(request.url), parsers);
    const { limit } = pageWindow(query);
    const id = parseId(params.id, what);
    if (!(await everExisted(deps, def, company.id, id))) throw notFound(what, id);
    const page = await readFeed(deps.db, { companyId: company.id, after: query.after, limit, resources: [def.name], record: { resource: def.name, id } });
    return pageOf(request, page, limit);
  }, {
    detail: operationDetail({
      operationId: `list${def.singular}Events`,
      summary: `History of one ${what}`,
      description: `The audit trail of one ${what}: every committed change, oldest first, with the request id and Idempotency-Key of the write. A deleted ${what} keeps its history.`,
      tags: [def.name],
      query: parsers,
      headers: ["IfNoneMatch"],
      responses: {
        200: { description: "A page of the record's events, oldest first.", headers: ["ETag"] },
        304: { description: "Not Modified: the ETag sent in If-None-Match still matches; empty body.", headers: ["ETag"] },
      },
      errors: mergeErrors(ADMISSION_ERRORS, { 400: ["invalid_query"], 404: ["not_found"], 410: ["cursor_expired"] }),
    }),
    response: { 200: EventPage },
  });
}

export function eventRoutes(deps: RouteDeps) {
  const app = new Elysia({ name: "events" }).use(feedRoute(deps));
  for (const def of RESOURCES) app.use(historyRoute(def, deps));
  return app;
}
