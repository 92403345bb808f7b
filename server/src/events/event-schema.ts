// An event of the change feed as the API shows it (GET /v1/events, a record's history, a webhook's
// body): the schema that documents it is also the type the feed reads its rows into, so the two
// cannot drift apart.
import { type Static, Type } from "@sinclair/typebox";
import { timestampSchema } from "../resources/schemas.ts";
import { EVENT_RESOURCES, EVENT_TYPES } from "./event-types.ts";

/** `project.created`, …: an enum, so generated clients type it as a union. */
export const EventTypeSchema = Type.String({
  enum: [...EVENT_TYPES],
  description: "`<resource>.<action>`: project.created, rental.updated, equipment.deleted, …",
  title: "EventType",
});

export const EventSchema = Type.Object(
  {
    id: Type.String({
      pattern: "^evt_[0-9a-z]{26}$",
      description: "The event's id; it is also a cursor (`after`).",
      examples: ["evt_00000000169k3fz0q8x2m7wd5r"],
    }),
    type: EventTypeSchema,
    resource: Type.String({
      enum: [...EVENT_RESOURCES],
      description: "The resource's path segment: projects, workers, …, rentals.",
      title: "EventResource",
    }),
    record_id: Type.Integer(),
    data: Type.Object(
      {
        record: Type.Object(
          {},
          {
            additionalProperties: true,
            description: "The record after the change (for a delete, as it was).",
          },
        ),
        changes: Type.Optional(
          Type.Record(Type.String(), Type.Object({ from: Type.Unknown(), to: Type.Unknown() }), {
            description: "For an update: each changed field.",
          }),
        ),
      },
      { additionalProperties: false },
    ),
    request_id: Type.String({ description: "The X-Request-Id of the write." }),
    idempotency_key: Type.Union([Type.String(), Type.Null()], {
      description: "The Idempotency-Key the write carried, if any.",
    }),
    created_at: timestampSchema(),
  },
  { additionalProperties: false, title: "Event" },
);

export type Event = Static<typeof EventSchema>;
