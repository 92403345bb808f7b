// The body of a refused request as RFC 9457 problem details, as a schema: the OpenAPI document's
// `Problem` and the type a refusal's body() makes (refusal.ts), written once.
import { type Static, Type } from "@sinclair/typebox";

/** A record another one names: a blocker of a delete, what a delete or restore takes along. */
export const RecordRefSchema = Type.Object(
  { resource: Type.String(), id: Type.Integer() },
  { additionalProperties: false, title: "RecordRef" },
);

export type RecordRef = Static<typeof RecordRefSchema>;

export const FieldErrorSchema = Type.Object(
  {
    field: Type.String({ description: "The body field (dotted path) or `body`." }),
    code: Type.String({
      description:
        "What is wrong: required, unknown_field, too_long, invalid_value, invalid_money, " +
        "invalid_date, date_order, invalid_reference, …",
    }),
    message: Type.String(),
  },
  { additionalProperties: false, title: "FieldError" },
);

/** RFC 9457 problem details; further members (extensions) may appear, as RFC 9457 allows. */
export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: "Always `about:blank`: `code` names the problem." }),
    title: Type.String({ description: "The HTTP status text." }),
    status: Type.Integer({ description: "The HTTP status code." }),
    detail: Type.String({ description: "What went wrong and what to do, for humans." }),
    code: Type.String({
      description:
        "Stable machine-readable error code; each response of each operation lists the codes it can carry.",
    }),
    request_id: Type.String({ description: "Same as the X-Request-Id response header." }),
    errors: Type.Optional(
      Type.Array(FieldErrorSchema, {
        description: "422: every failing field at once; 409 unique_violation: the field.",
      }),
    ),
    blockers: Type.Optional(
      Type.Array(RecordRefSchema, {
        description: "409 delete_blocked: the records that forbid the delete.",
      }),
    ),
    quota: Type.Optional(
      Type.Object(
        {
          resource: Type.String(),
          used: Type.Integer(),
          limit: Type.Integer(),
        },
        {
          additionalProperties: false,
          description: "402 quota_exceeded: the quota that was reached.",
        },
      ),
    ),
  },
  { title: "Problem" },
);

export type FieldError = Static<typeof FieldErrorSchema>;

export type Problem = Static<typeof ProblemSchema>;
