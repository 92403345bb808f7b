// A webhook endpoint and its deliveries as the API shows them: the schemas that document them
// (routes/webhook-routes.ts) are the types endpoints.ts answers with, so the two cannot drift apart.
import { type Static, Type } from "@sinclair/typebox";
import { EventTypeSchema } from "../events/event-schema.ts";
import { SUBSCRIPTIONS } from "../events/event-types.ts";
import { timestampSchema } from "../resources/schemas.ts";

const timestamp = timestampSchema();

export const SubscriptionSchema = Type.String({
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
  events: Type.Array(SubscriptionSchema, {
    description:
      "Event types: `project.created`, `project.*` (every action of one resource) or `*`.",
  }),
  description: Type.Union([Type.String(), Type.Null()]),
  enabled: Type.Boolean(),
  include_sensitive: Type.Boolean({
    description:
      "Whether deliveries carry sensitive fields (workers' hourly_rate, tax ids, sensitive custom " +
      "fields) that the scopes it keeps read; only a token holding `sensitive` sets it to true.",
  }),
  created_at: timestamp,
  updated_at: timestamp,
};

export const EndpointSchema = Type.Object(endpointProperties, {
  additionalProperties: false,
  title: "WebhookEndpoint",
});

export type Endpoint = Static<typeof EndpointSchema>;

export const EndpointWithSecretSchema = Type.Object(
  {
    ...endpointProperties,
    secret: Type.String({ description: "The signing secret (whsec_…). Shown only here: keep it." }),
  },
  { additionalProperties: false, title: "WebhookEndpointWithSecret" },
);

export type EndpointWithSecret = Static<typeof EndpointWithSecretSchema>;

const AttemptSchema = Type.Object(
  {
    attempted_at: timestamp,
    status_code: Type.Union([Type.Integer(), Type.Null()], {
      description: "What the endpoint answered; null when it did not answer.",
    }),
    duration_ms: Type.Integer(),
    error: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false, title: "WebhookAttempt" },
);

export const DeliverySchema = Type.Object(
  {
    id: Type.Integer(),
    event_id: Type.String(),
    event_type: Type.Union([EventTypeSchema, Type.Literal("ping")], {
      description: "The event's type, or `ping` for a test sent with POST …/test.",
    }),
    status: Type.Union([
      Type.Literal("pending"),
      Type.Literal("delivered"),
      Type.Literal("failed"),
      Type.Literal("cancelled"),
    ]),
    attempts: Type.Integer(),
    next_attempt_at: Type.Union([timestamp, Type.Null()]),
    delivered_at: Type.Union([timestamp, Type.Null()]),
    created_at: timestamp,
    attempt_log: Type.Array(AttemptSchema),
  },
  { additionalProperties: false, title: "WebhookDelivery" },
);

export type Delivery = Static<typeof DeliverySchema>;
