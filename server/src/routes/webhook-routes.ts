// /v1/webhook-endpoints (docs/events-and-webhooks.md): endpoints, secret rotation and the deliveries log. Writes run
// like every other write (one transaction, Idempotency-Key, X-Dry-Run: they then roll back).
import { Type, type TSchema } from "@sinclair/typebox";
import { t } from "elysia";
import { admitted, type AdmittedApp } from "../auth/admission.ts";
import type { Executor } from "../db/client.ts";
import { arrayEnvelope, createdOrPreviewed, itemEnvelope } from "../http/envelopes.ts";
import { holdOpen } from "../http/hold-open.ts";
import { type OperationDoc, operationDetail } from "../http/operation-docs.ts";
import { limitParam, offsetParam, pageWindow } from "../http/paging.ts";
import { parseQuery } from "../http/query.ts";
import { timestampSchema } from "../resources/schemas.ts";
import { type ReadView, readView } from "../resources/visibility.ts";
import { SEND_TIMEOUT_MS } from "../webhooks/attempt.ts";
import { replayEndpoint, testEndpoint } from "../webhooks/endpoint-actions.ts";
import {
  DeliverySchema,
  EndpointSchema,
  EndpointWithSecretSchema,
  SubscriptionSchema,
} from "../webhooks/endpoint-schemas.ts";
import {
  createEndpoint,
  MAX_OVERLAP_SECONDS,
  deleteEndpoint,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  rotateSecret,
  updateEndpoint,
} from "../webhooks/endpoints.ts";
import {
  answeringData,
  CREATED_WITH_SECRET,
  configMemberId,
  configWriteDoc,
  configWriteRoute,
} from "./config-routes.ts";
import { BODY_REFUSALS, type RouteDeps, writeParsers } from "./route-context.ts";
import { dataAnswer } from "./write-answers.ts";

const PATH = "/v1/webhook-endpoints";
const TAGS = ["webhooks"];

const timestamp = timestampSchema();
const DryRunWrite = Type.Object(
  { dry_run: Type.Literal(true) },
  { additionalProperties: false, title: "WebhookDryRun" },
);
const EndpointInput = Type.Object(
  {
    url: Type.String({ maxLength: 2048, examples: ["https://example.com/erp-hooks"] }),
    events: Type.Array(SubscriptionSchema, {
      minItems: 1,
      examples: [["project.*", "worker.updated"]],
    }),
    description: Type.Optional(t.Union([Type.String({ maxLength: 500 }), t.Null()])),
    enabled: Type.Optional(Type.Boolean({ default: true })),
    include_sensitive: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          "Deliver sensitive fields (hourly_rate, tax ids, sensitive custom fields) too: only a " +
          "token holding `sensitive` may set it (else 403 insufficient_scope). A change made by " +
          "another token turns it off.",
      }),
    ),
  },
  {
    additionalProperties: false,
    title: "WebhookEndpointCreate",
    examples: [
      {
        url: "https://example.com/erp-hooks",
        events: ["project.*", "worker.updated"],
        description: "CRM sync",
        enabled: true,
      },
    ],
  },
);
const EndpointPatch = Type.Partial(EndpointInput, {
  additionalProperties: false,
  title: "WebhookEndpointUpdate",
});
const RotationInput = Type.Object(
  {
    expires_in: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_OVERLAP_SECONDS,
        default: 0,
        description: "Seconds the old secret keeps signing deliveries beside the new one.",
      }),
    ),
  },
  { additionalProperties: false, title: "WebhookSecretRotation", examples: [{ expires_in: 3600 }] },
);
const TestResult = Type.Object(
  {
    delivery_id: Type.Integer(),
    event_id: Type.String(),
    status: Type.Union([Type.Literal("delivered"), Type.Literal("failed")]),
    status_code: t.Union([Type.Integer(), t.Null()], {
      description: "What the endpoint answered; null when it did not answer.",
    }),
    duration_ms: Type.Integer(),
    error: t.Union([Type.String(), t.Null()]),
    attempted_at: timestamp,
  },
  { additionalProperties: false, title: "WebhookTestResult" },
);
const ReplayInput = Type.Object(
  {
    after: Type.Optional(
      Type.String({ description: "An event id or next_cursor: the events after it." }),
    ),
    since: Type.Optional(
      Type.String({ format: "date-time", description: "The events from this moment on." }),
    ),
  },
  {
    additionalProperties: false,
    title: "WebhookReplay",
    description: "Exactly one of `after` and `since`.",
    examples: [{ since: "2026-11-26T08:00:00Z" }],
  },
);
const ReplayResult = Type.Object(
  {
    queued: Type.Integer({ description: "Events queued again (or that would be, in a dry-run)." }),
    dry_run: Type.Boolean(),
  },
  { additionalProperties: false, title: "WebhookReplayResult" },
);

const MEMBER = `${PATH}/:id`;

const memberId = configMemberId("webhook endpoint");

const deliveryParsers = { limit: limitParam, offset: offsetParam };

const writeDoc = configWriteDoc("webhooks:write", TAGS, ["IdempotencyKey", "XDryRun"]);

/** A write's answer, `{data: …}`, or its dry-run's `{data: {dry_run: true}}`. */
const orDryRun = (schema: TSchema, title: string) =>
  t.Union([itemEnvelope(schema, title), itemEnvelope(DryRunWrite, "WebhookDryRunResult")]);

function listRoute(app: AdmittedApp, deps: RouteDeps): void {
  app.get(
    PATH,
    async ({ company, request }) => {
      parseQuery(request.url, {});
      return { data: await listEndpoints(deps.db, company.id) };
    },
    {
      detail: operationDetail({
        operationId: "listWebhookEndpoints",
        scope: "webhooks:read",
        summary: "List webhook endpoints",
        description:
          "The company's webhook endpoints, oldest first (secrets are never shown again).",
        tags: TAGS,
        refusals: ["invalid_query"],
        responses: { 200: { description: "Every endpoint." } },
      }),
      response: { 200: arrayEnvelope(EndpointSchema, "WebhookEndpointList") },
    },
  );
}

function createRoute(app: AdmittedApp, deps: RouteDeps): void {
  configWriteRoute(app, deps, {
    method: "POST",
    path: PATH,
    ...answeringData(201, (db, body, { company, token }) =>
      createEndpoint(db, company.id, body, readView(token.scopes)),
    ),
    detail: operationDetail({
      operationId: "createWebhookEndpoint",
      summary: "Create a webhook endpoint",
      description:
        "Every later event whose type matches `events` is POSTed to `url` as JSON (the " +
        "event as in GET /v1/events) with `ERP-Event-Id` and `ERP-Signature: t=<unix " +
        'seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. A 2xx answer within ' +
        "10 s is a delivery; anything else is retried with exponential backoff for 24 " +
        "hours (at least 8 attempts). The answer carries the signing secret, once. " +
        "URLs must be https to a public address: every address the host resolves to is " +
        "checked when the endpoint is saved and again when each delivery connects, in " +
        "every spelling (IPv4-mapped and -compatible IPv6, NAT64, 6to4, Teredo, the " +
        "IANA special-purpose ranges), and a delivery connects only to an address so " +
        "checked. Redirects are not followed (a 3xx is a failed attempt). http and " +
        "private addresses only on servers run with WEBHOOK_ALLOW_PRIVATE=1. " +
        "Deliveries to one endpoint never delay another's: each endpoint (and each " +
        "company) has its own few sending slots, so a slow or dead receiver holds only " +
        "its own. An endpoint delivers only events of the resources the token that made " +
        "it (or changed it last) may read; subscribing to another resource's events is " +
        "403 insufficient_scope naming its read scope.",
      ...writeDoc(BODY_REFUSALS),
      body: EndpointInput,
      responses: CREATED_WITH_SECRET,
    }),
    response: createdOrPreviewed(
      itemEnvelope(Type.Union([EndpointWithSecretSchema, DryRunWrite]), "WebhookEndpointCreated"),
    ),
  });
}

function getRoute(app: AdmittedApp, deps: RouteDeps): void {
  app.get(
    MEMBER,
    async ({ company, params, request }) => {
      parseQuery(request.url, {});
      return { data: await getEndpoint(deps.db, company.id, memberId(params)) };
    },
    {
      detail: operationDetail({
        operationId: "getWebhookEndpoint",
        scope: "webhooks:read",
        summary: "Get one webhook endpoint",
        description: "One endpoint, without its secret.",
        tags: TAGS,
        refusals: ["invalid_query", "not_found"],
        responses: { 200: { description: "The endpoint." } },
      }),
      response: { 200: itemEnvelope(EndpointSchema, "WebhookEndpointItem") },
    },
  );
}

/**
 * A change to the endpoint the path names: `change` runs as a write answering 200 with `answer`
 * (its schema and title), or `{dry_run: true}` in a dry-run; the rest documents the operation.
 */
type EndpointChange = OperationDoc & {
  method: "PATCH" | "DELETE" | "POST";
  path: string;
  /** `view`: what the token may read (an endpoint delivers only that; resources/visibility.ts). */
  change: (
    db: Executor,
    companyId: number,
    id: number,
    body: unknown,
    view: ReadView,
  ) => Promise<unknown>;
  takesBody?: false;
  answer: [TSchema, string];
};

function changeRoute(app: AdmittedApp, deps: RouteDeps, spec: EndpointChange): void {
  const { method, path, change, takesBody, answer, ...doc } = spec;
  configWriteRoute(app, deps, {
    method,
    path,
    ...answeringData(200, (db, body, { company, token, params }) =>
      change(db, company.id, memberId(params), body, readView(token.scopes)),
    ),
    takesBody,
    detail: operationDetail(doc),
    response: { 200: orDryRun(...answer) },
  });
}

function updateRoute(app: AdmittedApp, deps: RouteDeps): void {
  changeRoute(app, deps, {
    method: "PATCH",
    path: MEMBER,
    change: updateEndpoint,
    answer: [EndpointSchema, "WebhookEndpointItem"],
    operationId: "updateWebhookEndpoint",
    summary: "Update a webhook endpoint",
    description:
      "Changes the fields sent (url, events, description, enabled). A disabled endpoint is sent " +
      "nothing; the events since it was disabled go out once it is enabled again. From then on " +
      "it delivers the events of the resources this token may read; a subscription naming " +
      "another resource is 403 insufficient_scope.",
    ...writeDoc([...BODY_REFUSALS, "not_found"]),
    body: EndpointPatch,
    responses: {
      200: {
        description: "The endpoint after the change (or `{dry_run: true}`).",
        headers: ["IdempotentReplayed"],
      },
    },
  });
}

function deleteRoute(app: AdmittedApp, deps: RouteDeps): void {
  changeRoute(app, deps, {
    method: "DELETE",
    path: MEMBER,
    change: deleteEndpoint,
    takesBody: false,
    answer: [
      Type.Object(
        { id: Type.Integer(), deleted: Type.Literal(true) },
        { additionalProperties: false, title: "WebhookEndpointDeleted" },
      ),
      "WebhookEndpointDeleteResult",
    ],
    operationId: "deleteWebhookEndpoint",
    summary: "Delete a webhook endpoint",
    description: "Nothing more is sent to it; its pending deliveries are cancelled.",
    ...writeDoc(["not_found"]),
    responses: {
      200: { description: "Deleted (or `{dry_run: true}`).", headers: ["IdempotentReplayed"] },
    },
  });
}

function rotateSecretRoute(app: AdmittedApp, deps: RouteDeps): void {
  changeRoute(app, deps, {
    method: "POST",
    path: `${MEMBER}/rotate-secret`,
    change: rotateSecret,
    answer: [
      Type.Object(
        {
          id: Type.Integer(),
          secret: Type.String(),
          previous_secret_expires_at: t.Union([timestamp, t.Null()], {
            description: "Until when the old secret signs too; null: it stopped at once.",
          }),
        },
        { additionalProperties: false, title: "WebhookSecret" },
      ),
      "WebhookSecretResult",
    ],
    operationId: "rotateWebhookSecret",
    summary: "Rotate a webhook endpoint's secret",
    description:
      "Makes a new signing secret, shown once in the answer. With `expires_in` (seconds, at " +
      "most 7 days) the old secret keeps signing every delivery beside the new one until " +
      "then (`ERP-Signature: t=…,v1=<new>,v1=<old>`), so a receiver that verifies either " +
      "never drops an event while it is redeployed with the new one; without it (or 0) the " +
      "old secret stops at once.",
    ...writeDoc([...BODY_REFUSALS, "not_found"]),
    body: RotationInput,
    responses: { 200: { description: "The new secret.", headers: ["IdempotentReplayed"] } },
  });
}

function testRoute(app: AdmittedApp, deps: RouteDeps): void {
  app.post(
    `${MEMBER}/test`,
    async ({ company, request, ctx, params }) => {
      parseQuery(request.url, writeParsers);
      const id = memberId(params);
      if (ctx.dryRun) {
        await getEndpoint(deps.db, company.id, id);
        return { data: { dry_run: true as const } };
      }
      // A receiver that never answers holds the attempt for its whole timeout: the answer comes after.
      holdOpen(request, SEND_TIMEOUT_MS / 1000 + 5);
      return { data: await testEndpoint(deps.db, company.id, id) };
    },
    {
      detail: operationDetail({
        operationId: "testWebhookEndpoint",
        scope: "webhooks:write",
        summary: "Send a test ping to a webhook endpoint",
        description:
          'POSTs a signed `ping` event (`{id, type: "ping", data: {endpoint_id}, ' +
          "created_at}`, signed like every delivery) to the endpoint now, enabled or not, and " +
          "answers the attempt. It appears in the deliveries log, never in the change feed, " +
          "and is not retried.",
        tags: TAGS,
        query: writeParsers,
        headers: ["XDryRun"],
        refusals: ["invalid_query", "not_found"],
        responses: { 200: { description: "The attempt (or `{dry_run: true}`: nothing sent)." } },
      }),
      response: { 200: orDryRun(TestResult, "WebhookTestAttempt") },
    },
  );
}

function replayRoute(app: AdmittedApp, deps: RouteDeps): void {
  configWriteRoute(app, deps, {
    method: "POST",
    path: `${MEMBER}/replay`,
    write: async (tx, body, { company, ctx, params }) => ({
      outcome: await replayEndpoint(tx.db, company.id, memberId(params), body, ctx.dryRun),
    }),
    respond: dataAnswer,
    detail: operationDetail({
      operationId: "replayWebhookEvents",
      summary: "Replay past events to a webhook endpoint",
      description:
        "Queues again every event the endpoint subscribes to after `after` (an event id) or " +
        "from `since` (a time), once each and in feed order, as new deliveries with a fresh " +
        "retry window: after an outage longer than the retry window, or to rebuild a " +
        "receiver's state. Events within the 30-day retention only (an older cursor is 410). " +
        "A dry-run tells how many it would queue.",
      ...writeDoc([...BODY_REFUSALS, "not_found", "cursor_expired"]),
      body: ReplayInput,
      responses: {
        200: { description: "How many were queued.", headers: ["IdempotentReplayed"] },
      },
    }),
    response: { 200: itemEnvelope(ReplayResult, "WebhookReplayAnswer") },
  });
}

function deliveriesRoute(app: AdmittedApp, deps: RouteDeps): void {
  app.get(
    `${MEMBER}/deliveries`,
    async ({ company, params, request }) => {
      const { limit, offset } = pageWindow(parseQuery(request.url, deliveryParsers));
      const page = await listDeliveries(deps.db, company.id, memberId(params), limit, offset);
      return { data: page.data, meta: { total: page.total, limit, offset } };
    },
    {
      detail: operationDetail({
        operationId: "listWebhookDeliveries",
        scope: "webhooks:read",
        summary: "The deliveries log of a webhook endpoint",
        description:
          "Newest first: each event sent (or being sent) to the endpoint, its status " +
          "(pending, delivered, failed after 24 h of retries, cancelled) and every " +
          "attempt with the status code and duration.",
        tags: TAGS,
        query: deliveryParsers,
        refusals: ["invalid_query", "not_found"],
        responses: { 200: { description: "A page of deliveries." } },
      }),
      response: {
        200: Type.Object(
          {
            data: Type.Array(DeliverySchema),
            meta: Type.Object(
              { total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() },
              { additionalProperties: false },
            ),
          },
          { additionalProperties: false, title: "WebhookDeliveryList" },
        ),
      },
    },
  );
}

/** The routes in the order the document lists them. */
const ROUTES = [
  listRoute,
  createRoute,
  getRoute,
  updateRoute,
  deleteRoute,
  rotateSecretRoute,
  testRoute,
  replayRoute,
  deliveriesRoute,
];

export function webhookRoutes(deps: RouteDeps): AdmittedApp {
  const app = admitted("webhooks", "api", deps.admission);
  for (const route of ROUTES) route(app, deps);
  return app;
}
