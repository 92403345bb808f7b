// /v1/webhook-endpoints (docs/events-and-webhooks.md): endpoints, secret rotation and the deliveries log. Writes run
// like every other write (one transaction, Idempotency-Key, X-Dry-Run: they then roll back).
import { Type, type TSchema } from "@sinclair/typebox";
import { t } from "elysia";
import { admitted } from "../auth/admission.ts";
import type { Executor } from "../db/client.ts";
import { holdOpen } from "../http/hold-open.ts";
import { operationDetail } from "../http/operation-docs.ts";
import { limitParam, offsetParam, pageWindow } from "../http/paging.ts";
import { parseQuery } from "../http/query.ts";
import { SUBSCRIPTIONS } from "../events/event-types.ts";
import { EventTypeSchema } from "./event-routes.ts";
import { timestampSchema } from "../resources/schemas.ts";
import { readView } from "../resources/visibility.ts";
import { SEND_TIMEOUT_MS } from "../webhooks/attempt.ts";
import { replayEndpoint, testEndpoint } from "../webhooks/endpoint-actions.ts";
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
  BODY_REFUSALS,
  parseId,
  runWrite,
  WRITE_REFUSALS,
  writeParsers,
  type RouteDeps,
  type WriteCall,
} from "./route-context.ts";
import { configAnswer, dataAnswer } from "./write-answers.ts";

const PATH = "/v1/webhook-endpoints";
const TAGS = ["webhooks"];

const timestamp = timestampSchema();
const Subscription = Type.String({
  enum: [...SUBSCRIPTIONS],
  description:
    "An event type (`project.created`), every action on one resource (`project.*`), or every event (`*`).",
  title: "WebhookSubscription",
});
const endpointProperties = {
  id: Type.Integer(),
  url: Type.String({
    description:
      "Where events are POSTed: https, or http to a private address when the server allows it.",
  }),
  events: Type.Array(Subscription, {
    description:
      "Event types: `project.created`, `project.*` (every action of one resource) or `*`.",
  }),
  description: t.Union([Type.String(), t.Null()]),
  enabled: Type.Boolean(),
  created_at: timestamp,
  updated_at: timestamp,
};
const Endpoint = Type.Object(endpointProperties, {
  additionalProperties: false,
  title: "WebhookEndpoint",
});
const EndpointWithSecret = Type.Object(
  {
    ...endpointProperties,
    secret: Type.String({ description: "The signing secret (whsec_…). Shown only here: keep it." }),
  },
  { additionalProperties: false, title: "WebhookEndpointWithSecret" },
);
const DryRunWrite = Type.Object(
  { dry_run: Type.Literal(true) },
  { additionalProperties: false, title: "WebhookDryRun" },
);
const EndpointInput = Type.Object(
  {
    url: Type.String({ maxLength: 2048, examples: ["https://example.com/erp-hooks"] }),
    events: Type.Array(Subscription, { minItems: 1, examples: [["project.*", "worker.updated"]] }),
    description: Type.Optional(t.Union([Type.String({ maxLength: 500 }), t.Null()])),
    enabled: Type.Optional(Type.Boolean({ default: true })),
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
const Attempt = Type.Object(
  {
    attempted_at: timestamp,
    status_code: t.Union([Type.Integer(), t.Null()], {
      description: "What the endpoint answered; null when it did not answer.",
    }),
    duration_ms: Type.Integer(),
    error: t.Union([Type.String(), t.Null()]),
  },
  { additionalProperties: false, title: "WebhookAttempt" },
);
const Delivery = Type.Object(
  {
    id: Type.Integer(),
    event_id: Type.String(),
    event_type: t.Union([EventTypeSchema, Type.Literal("ping")], {
      description: "The event's type, or `ping` for a test sent with POST …/test.",
    }),
    status: Type.Union([
      Type.Literal("pending"),
      Type.Literal("delivered"),
      Type.Literal("failed"),
      Type.Literal("cancelled"),
    ]),
    attempts: Type.Integer(),
    next_attempt_at: t.Union([timestamp, t.Null()]),
    delivered_at: t.Union([timestamp, t.Null()]),
    created_at: timestamp,
    attempt_log: Type.Array(Attempt),
  },
  { additionalProperties: false, title: "WebhookDelivery" },
);

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

const item = (schema: TSchema, title: string) =>
  Type.Object({ data: schema }, { additionalProperties: false, title });

/** Runs `work` as a write; in a dry-run it is rolled back and answers `{dry_run: true}`. */
function write<D>(
  deps: RouteDeps,
  call: WriteCall,
  status: number,
  work: (db: Executor, body: unknown) => Promise<D>,
  options?: { takesBody: false },
) {
  return runWrite(
    deps,
    call,
    async (tx, body) => ({ outcome: await work(tx.db, body) }),
    configAnswer<D>(status, call.ctx.dryRun),
    options,
  );
}

export function webhookRoutes(deps: RouteDeps) {
  const memberId = (params: unknown): number =>
    parseId((params as Record<string, string>).id, "webhook endpoint");
  const deliveryParsers = { limit: limitParam, offset: offsetParam };
  return admitted("webhooks", "api", deps.admission)
    .get(
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
        response: {
          200: Type.Object(
            { data: Type.Array(Endpoint) },
            { additionalProperties: false, title: "WebhookEndpointList" },
          ),
        },
      },
    )
    .post(
      PATH,
      ({ company, token, request, ctx, set }) =>
        write(deps, { company, request, ctx, set }, 201, (tx, body) =>
          createEndpoint(tx, company.id, body, readView(token.scopes)),
        ),
      {
        detail: operationDetail({
          operationId: "createWebhookEndpoint",
          scope: "webhooks:write",
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
          tags: TAGS,
          query: writeParsers,
          headers: ["IdempotencyKey", "XDryRun"],
          body: EndpointInput,
          refusals: [...WRITE_REFUSALS, ...BODY_REFUSALS],
          responses: {
            201: { description: "Created, with its secret.", headers: ["IdempotentReplayed"] },
            200: { description: "Dry-run: it would be created." },
          },
        }),
        // One schema for both answers: tools check every success against the lowest 2xx (docs/api.md).
        response: {
          201: item(Type.Union([EndpointWithSecret, DryRunWrite]), "WebhookEndpointCreated"),
          200: item(Type.Union([EndpointWithSecret, DryRunWrite]), "WebhookEndpointCreated"),
        },
      },
    )
    .get(
      `${PATH}/:id`,
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
        response: { 200: item(Endpoint, "WebhookEndpointItem") },
      },
    )
    .patch(
      `${PATH}/:id`,
      ({ company, token, request, ctx, set, params }) =>
        write(deps, { company, request, ctx, set }, 200, (tx, body) =>
          updateEndpoint(tx, company.id, memberId(params), body, readView(token.scopes)),
        ),
      {
        detail: operationDetail({
          operationId: "updateWebhookEndpoint",
          scope: "webhooks:write",
          summary: "Update a webhook endpoint",
          description:
            "Changes the fields sent (url, events, description, enabled). A disabled endpoint " +
            "is sent nothing; the events since it was disabled go out once it is enabled " +
            "again. From then on it delivers the events of the resources this token may read; " +
            "a subscription naming another resource is 403 insufficient_scope.",
          tags: TAGS,
          query: writeParsers,
          headers: ["IdempotencyKey", "XDryRun"],
          body: EndpointPatch,
          refusals: [...WRITE_REFUSALS, ...BODY_REFUSALS, "not_found"],
          responses: {
            200: {
              description: "The endpoint after the change (or `{dry_run: true}`).",
              headers: ["IdempotentReplayed"],
            },
          },
        }),
        response: {
          200: t.Union([
            item(Endpoint, "WebhookEndpointItem"),
            item(DryRunWrite, "WebhookDryRunResult"),
          ]),
        },
      },
    )
    .delete(
      `${PATH}/:id`,
      ({ company, request, ctx, set, params }) =>
        write(
          deps,
          { company, request, ctx, set },
          200,
          (tx) => deleteEndpoint(tx, company.id, memberId(params)),
          { takesBody: false },
        ),
      {
        detail: operationDetail({
          operationId: "deleteWebhookEndpoint",
          scope: "webhooks:write",
          summary: "Delete a webhook endpoint",
          description: "Nothing more is sent to it; its pending deliveries are cancelled.",
          tags: TAGS,
          query: writeParsers,
          headers: ["IdempotencyKey", "XDryRun"],
          refusals: [...WRITE_REFUSALS, "not_found"],
          responses: {
            200: {
              description: "Deleted (or `{dry_run: true}`).",
              headers: ["IdempotentReplayed"],
            },
          },
        }),
        response: {
          200: t.Union([
            item(
              Type.Object(
                { id: Type.Integer(), deleted: Type.Literal(true) },
                { additionalProperties: false, title: "WebhookEndpointDeleted" },
              ),
              "WebhookEndpointDeleteResult",
            ),
            item(DryRunWrite, "WebhookDryRunResult"),
          ]),
        },
      },
    )
    .post(
      `${PATH}/:id/rotate-secret`,
      ({ company, request, ctx, set, params }) =>
        write(deps, { company, request, ctx, set }, 200, (tx, body) =>
          rotateSecret(tx, company.id, memberId(params), body),
        ),
      {
        detail: operationDetail({
          operationId: "rotateWebhookSecret",
          scope: "webhooks:write",
          summary: "Rotate a webhook endpoint's secret",
          description:
            "Makes a new signing secret, shown once in the answer. With `expires_in` (seconds, at " +
            "most 7 days) the old secret keeps signing every delivery beside the new one until " +
            "then (`ERP-Signature: t=…,v1=<new>,v1=<old>`), so a receiver that verifies either " +
            "never drops an event while it is redeployed with the new one; without it (or 0) the " +
            "old secret stops at once.",
          tags: TAGS,
          query: writeParsers,
          headers: ["IdempotencyKey", "XDryRun"],
          body: RotationInput,
          refusals: [...WRITE_REFUSALS, ...BODY_REFUSALS, "not_found"],
          responses: { 200: { description: "The new secret.", headers: ["IdempotentReplayed"] } },
        }),
        response: {
          200: t.Union([
            item(
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
            ),
            item(DryRunWrite, "WebhookDryRunResult"),
          ]),
        },
      },
    )
    .post(
      `${PATH}/:id/test`,
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
        response: {
          200: t.Union([
            item(TestResult, "WebhookTestAttempt"),
            item(DryRunWrite, "WebhookDryRunResult"),
          ]),
        },
      },
    )
    .post(
      `${PATH}/:id/replay`,
      ({ company, request, ctx, set, params }) =>
        runWrite(
          deps,
          { company, request, ctx, set },
          async (tx, body) => ({
            outcome: await replayEndpoint(tx.db, company.id, memberId(params), body, ctx.dryRun),
          }),
          dataAnswer,
        ),
      {
        detail: operationDetail({
          operationId: "replayWebhookEvents",
          scope: "webhooks:write",
          summary: "Replay past events to a webhook endpoint",
          description:
            "Queues again every event the endpoint subscribes to after `after` (an event id) or " +
            "from `since` (a time), once each and in feed order, as new deliveries with a fresh " +
            "retry window: after an outage longer than the retry window, or to rebuild a " +
            "receiver's state. Events within the 30-day retention only (an older cursor is 410). " +
            "A dry-run tells how many it would queue.",
          tags: TAGS,
          query: writeParsers,
          headers: ["IdempotencyKey", "XDryRun"],
          body: ReplayInput,
          refusals: [...WRITE_REFUSALS, ...BODY_REFUSALS, "not_found", "cursor_expired"],
          responses: {
            200: { description: "How many were queued.", headers: ["IdempotentReplayed"] },
          },
        }),
        response: { 200: item(ReplayResult, "WebhookReplayAnswer") },
      },
    )
    .get(
      `${PATH}/:id/deliveries`,
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
              data: Type.Array(Delivery),
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
