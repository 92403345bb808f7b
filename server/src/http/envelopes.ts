// Response envelopes shared by every resource: list, item, create, update and delete results.
// Each `title` is the schema's component name in the OpenAPI document (and so in the SDK).
import { Type, type TSchema } from "@sinclair/typebox";
import { RecordRefSchema } from "../refusals/problem-schema.ts";

/**
 * An offset page carries `offset`; an after_id page carries `after_id` and `next_after_id` instead;
 * a sorted page carries `next_cursor`.
 */
export const ListMeta = Type.Object(
  {
    total: Type.Optional(
      Type.Integer({
        description:
          "Count of all records matching the query; left out when the request says total=false.",
      }),
    ),
    limit: Type.Integer({ description: "The effective page size (values above 100 are capped)." }),
    offset: Type.Optional(
      Type.Integer({
        description: "Start position of this page (offset paging; absent on an after_id page).",
      }),
    ),
    after_id: Type.Optional(
      Type.Integer({ description: "The after_id this page was asked for (after_id paging only)." }),
    ),
    next_cursor: Type.Optional(
      Type.String({
        description:
          "On a sorted page (or one asked for with after) while more records follow: the after " +
          "of the next page, an opaque cursor bound to this list's sort and filters. " +
          "Absent on the last page.",
      }),
    ),
    next_after_id: Type.Optional(
      Type.Integer({
        description:
          "On an after_id page while more records follow: the after_id of the next page (the id " +
          "of this page's last record). Absent on the last page.",
      }),
    ),
  },
  { additionalProperties: false, title: "ListMeta" },
);

/** `{data: [...], meta}`, named after its item: Project → ProjectList. */
export const listEnvelope = (item: TSchema, title = `${item.title}List`): TSchema =>
  Type.Object({ data: Type.Array(item), meta: ListMeta }, { additionalProperties: false, title });

/** `{data: [...]}` with no paging: every item at once (a company's tokens, its webhook endpoints). */
export const arrayEnvelope = (item: TSchema, title: string): TSchema =>
  Type.Object({ data: Type.Array(item) }, { additionalProperties: false, title });

/** `{data: item}`, named after its item: Project → ProjectItem, unless given a title. */
export const itemEnvelope = (item: TSchema, title = `${item.title}Item`): TSchema =>
  Type.Object({ data: item }, { additionalProperties: false, title });

/**
 * The answers of a write that creates (201) or, in a dry-run, previews (200): one schema for both,
 * because tools check every success against the lowest 2xx (docs/api.md).
 */
export const createdOrPreviewed = (answer: TSchema) => ({ 201: answer, 200: answer });

/**
 * 201 of a create and 200 of its dry-run, in one schema: tools read an operation's responses into
 * objects whose integer keys come out in ascending order and check every success against the
 * lowest 2xx (docs/api.md), so both answers of an operation validate against each one.
 */
export const createdResult = (record: TSchema): TSchema =>
  itemEnvelope(
    Type.Object(
      {
        id: Type.Union([Type.Integer(), Type.Null()], {
          description: "The new record's id; null in a dry-run, which consumes no id.",
        }),
        created: Type.Boolean({
          description: "True when the record was written (false in a dry-run).",
        }),
        dry_run: Type.Boolean(),
        record: Type.Optional(record),
      },
      {
        additionalProperties: false,
        title: `${record.title}Created`,
        description:
          "`record` only with `Prefer: return=representation` on a real create: the record as " +
          "GET returns it (its ETag is the answer's ETag header).",
      },
    ),
    `${record.title}CreatedResult`,
  );

const Change = Type.Object(
  { from: Type.Unknown(), to: Type.Unknown() },
  { additionalProperties: false, title: "Change" },
);

export const updateResult = (record: TSchema): TSchema =>
  itemEnvelope(
    Type.Object(
      {
        id: Type.Integer(),
        updated: Type.Boolean({
          description:
            "True when a change was written (false in a dry-run and when nothing changed).",
        }),
        dry_run: Type.Boolean(),
        changes: Type.Record(Type.String(), Change, {
          description: "Each changed field with its stored and its new value.",
        }),
        record,
      },
      { additionalProperties: false, title: `${record.title}UpdateOutcome` },
    ),
    `${record.title}UpdateResult`,
  );

/** 201 (created) and 200 (updated, or a dry-run of either) of an upsert, in one schema as for a create. */
export const upsertResult = (record: TSchema): TSchema =>
  itemEnvelope(
    Type.Object(
      {
        id: Type.Union([Type.Integer(), Type.Null()], {
          description: "The record's id; null in a dry-run that would create.",
        }),
        created: Type.Boolean({ description: "True when a new record was written." }),
        updated: Type.Boolean({
          description: "True when an existing record was changed (false when nothing changed).",
        }),
        dry_run: Type.Boolean(),
        changes: Type.Optional(
          Type.Record(Type.String(), Change, {
            description: "On an update: each changed field with its stored and its new value.",
          }),
        ),
        record: Type.Optional(record),
      },
      {
        additionalProperties: false,
        title: `${record.title}UpsertOutcome`,
        description:
          "An update answers `changes` and `record`; a create answers `record` with `Prefer: return=representation`.",
      },
    ),
    `${record.title}UpsertResult`,
  );

export const restoreResult = (record: TSchema): TSchema =>
  itemEnvelope(
    Type.Object(
      {
        id: Type.Integer(),
        restored: Type.Boolean({
          description: "True when the record was brought back (false in a dry-run).",
        }),
        dry_run: Type.Boolean(),
        would_restore: Type.Array(RecordRefSchema, {
          description:
            "What comes back: the record and the records deleted together with it (a piece of " +
            "equipment's or a project's unbilled rentals).",
        }),
        record,
      },
      { additionalProperties: false, title: `${record.title}RestoreOutcome` },
    ),
    `${record.title}RestoreResult`,
  );

export const DeleteResult = itemEnvelope(
  Type.Object(
    {
      id: Type.Integer(),
      deleted: Type.Boolean(),
      dry_run: Type.Boolean(),
      mode: Type.String({
        enum: ["soft"],
        description: "Every delete is soft: the record stays for history but is gone from the API.",
      }),
      would_delete: Type.Array(RecordRefSchema, {
        description:
          "What the delete removes: the record and its dependent records that go with it.",
      }),
      would_keep: Type.Array(RecordRefSchema, {
        description: "Live records that reference it and stay.",
      }),
    },
    { additionalProperties: false, title: "DeleteOutcome" },
  ),
  "DeleteResult",
);
