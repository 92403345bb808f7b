// GET /v1/events (the change feed) and GET /v1/{resource}/{id}/events (one record's history).
import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { admitted } from "../auth/admission.ts";
import { and, eq } from "drizzle-orm";
import type { Company } from "../auth/company.ts";
import type { Executor } from "../db/client.ts";
import { latestCursor, readFeed, waitForFeed, type FeedPage } from "../events/event-feed.ts";
import { EventSchema } from "../events/event-schema.ts";
import { shownEvents } from "../events/shown-event.ts";
import { RETENTION_DAYS } from "../events/retention.ts";
import { operationDetail } from "../http/operation-docs.ts";
import { limitParam, pageWindow } from "../http/paging.ts";
import { notFound } from "../refusals/catalogue.ts";
import { holdOpen } from "../http/hold-open.ts";
import { described, integerParam, oneOfParam, parseQuery, textParam } from "../http/query.ts";
import { readResponse, type ReadCall } from "../http/respond.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { LOOKUPS, RESOURCES } from "../resources/registry.ts";
import { operationScope } from "../resources/scopes.ts";
import { type ReadView, readView } from "../resources/visibility.ts";
import {
  EVENT_RESOURCES,
  EVENT_TYPES,
  EVENTFUL,
  OTHER_SOURCES,
  otherSourceOfType,
  RESOURCE_WILDCARDS,
  resourceOfType,
} from "../events/event-types.ts";
import { column } from "../resources/store.ts";
import { parseId, type RouteDeps } from "./route-context.ts";

const typeParam = described(
  oneOfParam([...EVENT_TYPES, ...RESOURCE_WILDCARDS]),
  "Only events of this type (`project.created`), or of every action on one resource (`project.*`).",
);

const afterParam = described(
  textParam,
  "An event id, or the `meta.next_cursor` of the previous page: only events after it.",
);

/** The longest a long-poll waits; below any client's or proxy's usual timeout. */
const MAX_WAIT_SECONDS = 30;

/** Past the wait, the time the answer may still take (its read's database budget and the answer). */
const ANSWER_SECONDS = 15;

const feedAfterParam = described(
  textParam,
  "An event id, or the `meta.next_cursor` of the previous page: only events after it. `latest` " +
    "starts at the newest event: the page has no events and its `meta.next_cursor` is where " +
    "to follow from (a cursor at the start of the feed when it has none yet).",
  { examples: ["evt_00000000169k3fz0q8x2m7wd5r", "latest"] },
);

const waitParam = described(
  integerParam(1, MAX_WAIT_SECONDS),
  `Long-poll: when no event follows the cursor yet, wait up to this many seconds ` +
    `(1–${MAX_WAIT_SECONDS}) and answer as soon as one commits on any server, else an empty ` +
    `page after that time (same \`next_cursor\`). A follower that sends each next_cursor ` +
    `with \`wait\` sees each new event within a second of its commit, without polling.`,
);

const EventPage = Type.Object(
  {
    data: Type.Array(EventSchema),
    meta: Type.Object(
      {
        next_cursor: Type.Union([Type.String(), Type.Null()], {
          description:
            "Pass as `after` for the next page; it stays put when there are no newer events, so " +
            "polling with it follows the feed.",
        }),
        limit: Type.Integer(),
      },
      { additionalProperties: false, title: "EventPageMeta" },
    ),
  },
  { additionalProperties: false, title: "EventPage" },
);

/** A page of events as the token sees them: each record and its changes without what it may not see. */
async function pageOf(
  call: ReadCall,
  page: FeedPage,
  limit: number,
  seen: { view: ReadView; companyId: number; db: Executor },
): Promise<Response> {
  const { view, companyId, db } = seen;
  return readResponse(
    call,
    {
      data: await shownEvents(page.events, view, companyId, db),
      meta: { next_cursor: page.nextCursor, limit },
    },
    { untimed: view.untimed },
  );
}

/**
 * The resources whose events a caller sees: those of its company's add-ons that its token may
 * read. A filter that names a resource the token may not read is 403 naming the read scope (an
 * empty feed would not say why).
 */
function visibleResources(
  company: Company,
  view: ReadView,
  filters: { resource?: string; type?: string },
): string[] {
  if (filters.resource !== undefined) view.mustReadEvents(filters.resource);
  const typed = filters.type === undefined ? undefined : resourceOfType(filters.type);
  const other = filters.type === undefined ? undefined : otherSourceOfType(filters.type);
  if (typed) view.mustRead(typed);
  else if (other) view.mustReadEvents(other);
  return [
    ...view
      .readable(EVENTFUL)
      .filter((def) => company.addons.has(def.addon))
      .map((def) => def.name),
    ...OTHER_SOURCES.filter((source) => view.readsEventsOf(source)),
  ];
}

function feedRoute(deps: RouteDeps) {
  const parsers = {
    after: feedAfterParam,
    limit: limitParam,
    type: typeParam,
    resource: described(oneOfParam(EVENT_RESOURCES), "Only events of this resource."),
    wait: waitParam,
  };
  return admitted("events:feed", "api", deps.admission).get(
    "/v1/events",
    async ({ request, set, company, token }) => {
      const query = parseQuery(request.url, parsers);
      const { limit } = pageWindow(query);
      const view = readView(token.scopes);
      const visible = visibleResources(company, view, query);
      const resources = query.resource
        ? visible.filter((name) => name === query.resource)
        : visible;
      const after =
        query.after === "latest" ? await latestCursor(deps.db, company.id) : query.after;
      const feed = { companyId: company.id, after, limit, resources, type: query.type };
      if (query.wait === undefined) {
        // `latest` alone only tells where the feed ends now.
        const page =
          query.after === "latest"
            ? { events: [], nextCursor: after! }
            : await readFeed(deps.db, feed);
        return pageOf({ request, set }, page, limit, { view, companyId: company.id, db: deps.db });
      }
      holdOpen(request, query.wait + ANSWER_SECONDS);
      return pageOf(
        { request, set },
        await waitForFeed(deps.db, deps.waiters, feed, query.wait, request.signal),
        limit,
        { view, companyId: company.id, db: deps.db },
      );
    },
    {
      detail: operationDetail({
        operationId: "listEvents",
        scope: "events:read",
        summary: "The change feed",
        description:
          `Every committed change of the company's records, in commit order: ` +
          `creates, updates, deletes and rental changes (not dry-runs, replays or writes ` +
          `that changed nothing). Follow \`meta.next_cursor\` (pass it as \`after\`) to see ` +
          `every event exactly once and in order, even while several servers commit at once. ` +
          `To follow the feed live, start with \`after=latest\` and long-poll: pass each ` +
          `next_cursor with \`wait=30\`, and the answer comes as soon as a new event commits ` +
          `(within a second), or empty after 30 s. Events are kept ${RETENTION_DAYS} days; a ` +
          `cursor older than that is 410 cursor_expired. The feed shows the events of the ` +
          `resources the token may read (their read scope) whose add-on the company has; ` +
          `\`resource\` or \`type\` naming a resource the token may not read is 403 ` +
          `insufficient_scope naming its read scope.`,
        tags: ["events"],
        query: parsers,
        headers: ["IfNoneMatch"],
        responses: {
          200: { description: "A page of events, oldest first.", headers: ["ETag"] },
          304: {
            description: "Not Modified: the ETag sent in If-None-Match still matches; empty body.",
            headers: ["ETag"],
          },
        },
        refusals: ["invalid_query", "cursor_expired"],
      }),
      response: { 200: EventPage },
    },
  );
}

/** True when the company has (or had: deleted records keep their history) this record. */
async function everExisted(
  deps: RouteDeps,
  def: ResourceDefinition,
  companyId: number,
  id: number,
): Promise<boolean> {
  const rows = await deps.db
    .select({ id: column(def.table, "id") })
    .from(def.table)
    .where(and(eq(column(def.table, "company_id"), companyId), eq(column(def.table, "id"), id)))
    .limit(1);
  return rows.length > 0;
}

function historyRoute(def: ResourceDefinition, deps: RouteDeps) {
  const parsers = { after: afterParam, limit: limitParam };
  const what = def.singular.toLowerCase();
  return admitted(`events:${def.name}`, def.addon, deps.admission).get(
    `/v1/${def.name}/:id/events`,
    async ({ request, set, company, token, params }) => {
      const query = parseQuery(request.url, parsers);
      const { limit } = pageWindow(query);
      const id = parseId(params.id, what);
      if (!(await everExisted(deps, def, company.id, id))) throw notFound(what, id);
      const page = await readFeed(deps.db, {
        companyId: company.id,
        after: query.after,
        limit,
        resources: [def.name],
        record: { resource: def.name, id },
      });
      return pageOf({ request, set }, page, limit, {
        view: readView(token.scopes),
        companyId: company.id,
        db: deps.db,
      });
    },
    {
      detail: operationDetail({
        operationId: `list${def.singular}Events`,
        // A record's history is part of reading the record.
        scope: operationScope(def, "get"),
        summary: `History of one ${what}`,
        description:
          `The audit trail of one ${what}: every committed change, oldest first, ` +
          `with the request id and Idempotency-Key of the write. A deleted ${what} keeps its ` +
          `history.`,
        tags: [def.tag ?? def.name],
        query: parsers,
        headers: ["IfNoneMatch"],
        responses: {
          200: { description: "A page of the record's events, oldest first.", headers: ["ETag"] },
          304: {
            description: "Not Modified: the ETag sent in If-None-Match still matches; empty body.",
            headers: ["ETag"],
          },
        },
        refusals: ["invalid_query", "not_found", "cursor_expired"],
      }),
      response: { 200: EventPage },
    },
  );
}

export function eventRoutes(deps: RouteDeps) {
  const app = new Elysia({ name: "events" }).use(feedRoute(deps));
  for (const def of [...RESOURCES, ...LOOKUPS]) app.use(historyRoute(def, deps));
  return app;
}
