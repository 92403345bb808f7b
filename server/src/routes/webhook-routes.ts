// /v1/webhook-endpoints (CONTRACT 13): endpoints, secret rotation and the deliveries log. Writes run
// like every other write (one transaction, Idempotency-Key, X-Dry-Run: they then roll back).
import { Type, type TSchema } from "@sinclair/typebox";
import { sql } from "drizzle-orm";
import { Elysia, t } from "elysia";
import type { Transaction } from "../db/client.ts";
import { readJsonBody } from "../http/body.ts";
import { ADMISSION_ERRORS, mergeErrors, operationDetail, type ErrorCodes } from "../http/operation-docs.ts";
import { limitParam, offsetParam, pageWindow } from "../http/paging.ts";
import { parseQuery } from "../http/query.ts";
import { timestampSchema } from "../resources/schemas.ts";
import { contextOf, requestContext, WRITE_METHODS } from "../http/request-context.ts";
import { checkIdempotencyKey } from "../writes/idempotency.ts";
import {
  createEndpoint, deleteEndpoint, getEndpoint, listDeliveries, listEndpoints, rotateSecret, updateEndpoint,
} from "../webhooks/endpoints.ts";
import { parseId, runWrite, writeParsers, type RouteDeps } from "./route-context.ts";

const PATH = "/v1/webhook-endpoints";
const TAGS = ["webhooks"];
const WRITE_ERRORS: ErrorCodes = { 400: ["invalid_query", "invalid_idempotency_key", "malformed_json"], 409: ["idempotency_key_reuse", "idempotency_in_progress"], 413: ["payload_too_large"], 415: ["unsupported_media_type"], 422: ["validation_failed"] };
const MEMBER_ERRORS: ErrorCodes = { 404: ["not_found"] };

const timestamp = timestampSchema();
const endpointProperties = {
  id: Type.Integer(),
  url: Type.String({ description: "Where events are POSTed: https, or http to a private address when the server allows it." }),
  events: Type.Array(Type.String(), { description: "Event types: `project.created`, `project.*` (every action of one resource) or `*`." }),
  description: t.Union([Type.String(), t.Null()]),
  enabled: Type.Boolean(),
  created_at: timestamp,
  updated_at: timestamp,
};
const Endpoint = Type.Object(endpointProperties, { additionalProperties: false, title: "WebhookEndpoint" });
const EndpointWithSecret = Type.Object({
  ...endpointProperties,
  secret: Type.String({ description: "The signing secret (whsec_…). Shown only here: keep it." }),
}, { additionalProperties: false, title: "WebhookEndpointWithSecret" });
const DryRunWrite = Type.Object({ dry_run: Type.Literal(true) }, { additionalProperties: false, title: "WebhookDryRun" });
const EndpointInput = Type.Object({
  url: Type.String({ maxLength: 2048, examples: ["https://example.com/erp-hooks"] }),
  events: Type.Array(Type.String(), { minItems: 1, examples: [["project.*", "worker.updated"]] }),
  description: Type.Optional(t.Union([Type.String({ maxLength: 500 }), t.Null()])),
  enabled: Type.Optional(Type.Boolean({ default: true })),
}, { additionalProperties: false, title: "WebhookEndpointCreate" });
const EndpointPatch = Type.Partial(EndpointInput, { additionalProperties: false, title: "WebhookEndpointUpdate" });
const Attempt = Type.Object({
  attempted_at: timestamp,
  status_code: t.Union([Type.Integer(), t.Null()], { description: "What the endpoint answered; null when it did not answer." }),
  duration_ms: Type.Integer(),
  error: t.Union([Type.String(), t.Null()]),
}, { additionalProperties: false, title: "WebhookAttempt" });
const Delivery = Type.Object({
  id: Type.Integer(),
  event_id: Type.String(),
  event_type: Type.String(),
  status: Type.Union([Type.Literal("pending"), Type.Literal("delivered"), Type.Literal("failed"), Type.Literal("cancelled")]),
  attempts: Type.Integer(),
  next_attempt_at: t.Union([timestamp, t.Null()]),
  delivered_at: t.Union([timestamp, t.Null()]),
  created_at: timestamp,
  attempt_log: Type.Array(Attempt),
}, { additionalProperties: false, title: "WebhookDelivery" });

const item = (schema: TSchema, title: string) => Type.Object({ data: schema }, { additionalProperties: false, title });

/** Runs `work` as a write; in a dry-run it is rolled back and answers what it would have done. */
function write(deps: RouteDeps, request: Request, body: unknown, set: { status?: number | string; headers: Record<string, unknown> }, status: number, work: (tx: Transaction) => Promise<unknown>) {
  const ctx = contextOf(request);
  // The answer is whatever the write produced; the route's response schemas say what that may be.
  return runWrite(deps, request, ctx, body, set, async (tx) => {
    await tx.execute(sql`SAVEPOINT webhook_write`);
    const data = await work(tx);
    if (!ctx.dryRun) return { status, body: { data } };
    await tx.execute(sql`ROLLBACK TO SAVEPOINT webhook_write`);
    return { status: 200, body: { data: { dry_run: true } } };
  }) as Promise<never>;
}

export function webhookRoutes(deps: RouteDeps) {
  const memberId = (params: unknown): number => parseId((params as Record<string, string>).id, "webhook endpoint");
  const deliveryParsers = { limit: limitParam, offset: offsetParam };
  return new Elysia({ name: "webhooks" })
    .use(requestContext)
    .onParse(async ({ request, set }) => {
      await deps.admit(request, contextOf(request), "api", set.headers);
      return (await readJsonBody(request)) ?? null;
    })
    .derive(async ({ request, ctx, set }) => {
      const company = await deps.admit(request, ctx, "api", set.headers);
      if (WRITE_METHODS.has(request.method)) checkIdempotencyKey(ctx.idempotencyKey);
      return { company };
    })
    .get(PATH, async ({ company, request }) => {
      parseQuery(new URL(request.url), {});
      return { data: await listEndpoints(deps.db, company.id) };
    }, {
      detail: operationDetail({ operationId: "listWebhookEndpoints", summary: "List webhook endpoints", description: "The company's webhook endpoints, oldest first (secrets are never shown again).", tags: TAGS, errors: mergeErrors(ADMISSION_ERRORS, { 400: ["invalid_query"] }), responses: { 200: { description: "Every endpoint." } } }),
      response: { 200: Type.Object({ data: Type.Array(Endpoint) }, { additionalProperties: false, title: "WebhookEndpointList" }) },
    })
    .post(PATH, ({ company, request, body, set }) => write(deps, request, body, set, 201, (tx) => createEndpoint(tx, company.id, body)), {
      detail: operationDetail({
        operationId: "createWebhookEndpoint", summary: "Create a webhook endpoint",
        description: "Every later event whose type matches `events` is POSTed to `url` as JSON (the event as in GET /v1/events) with `ERP-Event-Id` and `ERP-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, \"<t>.<raw body>\")>`. A 2xx answer within 10 s is a delivery; anything else is retried with exponential backoff for 24 hours (at least 8 attempts). The answer carries the signing secret, once. URLs must be https to a public address (http and private addresses only on servers run with WEBHOOK_ALLOW_PRIVATE=1).",
        tags: TAGS, query: writeParsers, headers: ["IdempotencyKey", "XDryRun"], body: EndpointInput,
        errors: mergeErrors(ADMISSION_ERRORS, WRITE_ERRORS),
        responses: { 201: { description: "Created, with its secret.", headers: ["IdempotentReplayed"] }, 200: { description: "Dry-run: it would be created." } },
      }),
      response: { 201: item(EndpointWithSecret, "WebhookEndpointCreated"), 200: item(DryRunWrite, "WebhookDryRunResult") },
    })
    .get(`${PATH}/:id`, async ({ company, params, request }) => {
      parseQuery(new URL(request.url), {});
      return { data: await getEndpoint(deps.db, company.id, memberId(params)) };
    }, {
      detail: operationDetail({ operationId: "getWebhookEndpoint", summary: "Get one webhook endpoint", description: "One endpoint, without its secret.", tags: TAGS, errors: mergeErrors(ADMISSION_ERRORS, { 400: ["invalid_query"] }, MEMBER_ERRORS), responses: { 200: { description: "The endpoint." } } }),
      response: { 200: item(Endpoint, "WebhookEndpointItem") },
    })
    .patch(`${PATH}/:id`, ({ company, params, request, body, set }) => write(deps, request, body, set, 200, (tx) => updateEndpoint(tx, company.id, memberId(params), body)), {
      detail: operationDetail({ operationId: "updateWebhookEndpoint", summary: "Update a webhook endpoint", description: "Changes the fields sent (url, events, description, enabled). A disabled endpoint gets no new deliveries.", tags: TAGS, query: writeParsers, headers: ["IdempotencyKey", "XDryRun"], body: EndpointPatch, errors: mergeErrors(ADMISSION_ERRORS, WRITE_ERRORS, MEMBER_ERRORS), responses: { 200: { description: "The endpoint after the change (or `{dry_run: true}`).", headers: ["IdempotentReplayed"] } } }),
      response: { 200: t.Union([item(Endpoint, "WebhookEndpointItem"), item(DryRunWrite, "WebhookDryRunResult")]) },
    })
    .delete(`${PATH}/:id`, ({ company, params, request, set }) => write(deps, request, undefined, set, 200, (tx) => deleteEndpoint(tx, company.id, memberId(params))), {
      detail: operationDetail({ operationId: "deleteWebhookEndpoint", summary: "Delete a webhook endpoint", description: "Nothing more is sent to it; its pending deliveries are cancelled.", tags: TAGS, query: writeParsers, headers: ["IdempotencyKey", "XDryRun"], errors: mergeErrors(ADMISSION_ERRORS, { 400: ["invalid_query", "invalid_idempotency_key"], 409: ["idempotency_key_reuse", "idempotency_in_progress"] }, MEMBER_ERRORS), responses: { 200: { description: "Deleted (or `{dry_run: true}`).", headers: ["IdempotentReplayed"] } } }),
      response: { 200: t.Union([item(Type.Object({ id: Type.Integer(), deleted: Type.Literal(true) }, { additionalProperties: false, title: "WebhookEndpointDeleted" }), "WebhookEndpointDeleteResult"), item(DryRunWrite, "WebhookDryRunResult")]) },
    })
    .post(`${PATH}/:id/rotate-secret`, ({ company, params, request, set }) => write(deps, request, undefined, set, 200, (tx) => rotateSecret(tx, company.id, memberId(params))), {
      detail: operationDetail({ operationId: "rotateWebhookSecret", summary: "Rotate a webhook endpoint's secret", description: "Makes a new signing secret, shown once in the answer; every delivery from now on is signed with it.", tags: TAGS, query: writeParsers, headers: ["IdempotencyKey", "XDryRun"], errors: mergeErrors(ADMISSION_ERRORS, { 400: ["invalid_query", "invalid_idempotency_key"], 409: ["idempotency_key_reuse", "idempotency_in_progress"] }, MEMBER_ERRORS), responses: { 200: { description: "The new secret.", headers: ["IdempotentReplayed"] } } }),
      response: { 200: t.Union([item(Type.Object({ id: Type.Integer(), secret: Type.String() }, { additionalProperties: false, title: "WebhookSecret" }), "WebhookSecretResult"), item(DryRunWrite, "WebhookDryRunResult")]) },
    })
    .get(`${PATH}/:id/deliveries`, async ({ company, params, request }) => {
      const { limit, offset } = pageWindow(parseQuery(new URL(request.url), deliveryParsers));
      const page = await listDeliveries(deps.db, company.id, memberId(params), limit, offset);
      return { data: page.data, meta: { total: page.total, limit, offset } };
    }, {
      detail: operationDetail({ operationId: "listWebhookDeliveries", summary: "The deliveries log of a webhook endpoint", description: "Newest first: each event sent (or being sent) to the endpoint, its status (pending, delivered, failed after 24 h of retries, cancelled) and every attempt with the status code and duration.", tags: TAGS, query: deliveryParsers, errors: mergeErrors(ADMISSION_ERRORS, { 400: ["invalid_query"] }, MEMBER_ERRORS), responses: { 200: { description: "A page of deliveries." } } }),
      response: { 200: Type.Object({ data: Type.Array(Delivery), meta: Type.Object({ total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }, { additionalProperties: false }) }, { additionalProperties: false, title: "WebhookDeliveryList" }) },
    });
}
