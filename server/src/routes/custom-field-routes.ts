// /v1/custom-fields (docs/custom-fields.md): a company's own fields of its resources. Definitions
// configure the company's records rather than record its business, so their routes are written here
// over the same admission and runWrite as every write (one transaction, Idempotency-Key, dry-run,
// If-Match), and their writes (writes/custom-field-writes.ts) tell events `custom_field.*`.
import { Type, type TSchema } from "@sinclair/typebox";
import { t } from "elysia";
import { admitted, type AdmittedApp } from "../auth/admission.ts";
import { arrayEnvelope, createdOrPreviewed, itemEnvelope } from "../http/envelopes.ts";
import { etagOf } from "../http/etag.ts";
import { operationDetail } from "../http/operation-docs.ts";
import { described, oneOfParam, parseQuery } from "../http/query.ts";
import { readResponse } from "../http/respond.ts";
import { notFound } from "../refusals/catalogue.ts";
import {
  CUSTOM_FIELD_TYPES,
  type CustomField,
  findCustomField,
  readCustomFields,
} from "../resources/custom-fields.ts";
import { RESOURCES } from "../resources/registry.ts";
import type { Answer } from "../writes/execute-write.ts";
import { timestampSchema } from "../resources/schemas.ts";
import { ANY_READ_SCOPES, CUSTOM_FIELDS_WRITE } from "../resources/scopes.ts";
import {
  createCustomField,
  deleteCustomField,
  updateCustomField,
} from "../writes/custom-field-writes.ts";
import { configMemberId, configWriteDoc, configWriteRoute } from "./config-routes.ts";
import { BODY_REFUSALS, type RouteDeps } from "./route-context.ts";

const PATH = "/v1/custom-fields";
const MEMBER = `${PATH}/:id`;
const TAGS = ["custom-fields"];
const RESOURCE_NAMES = RESOURCES.map((def) => def.name);

const Options = Type.Object(
  {
    max_length: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    choices: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 500 }),
    ),
  },
  { additionalProperties: false, description: "text: max_length (default 255); select: choices." },
);

const CustomFieldSchema = Type.Object(
  {
    id: Type.Integer(),
    resource: Type.String({ enum: RESOURCE_NAMES }),
    key: Type.String({ pattern: "^[a-z][a-z0-9_]{0,39}$" }),
    label: Type.String(),
    type: Type.String({ enum: [...CUSTOM_FIELD_TYPES] }),
    required: Type.Boolean(),
    unique: Type.Boolean(),
    sensitive: Type.Boolean(),
    options: Options,
    description: t.Union([Type.String(), t.Null()]),
    created_at: timestampSchema(),
    updated_at: timestampSchema(),
  },
  { additionalProperties: false, title: "CustomField" },
);

const writable = {
  label: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  required: Type.Optional(Type.Boolean({ default: false })),
  unique: Type.Optional(Type.Boolean({ default: false })),
  sensitive: Type.Optional(Type.Boolean({ default: false })),
  options: Type.Optional(Options),
  description: Type.Optional(t.Union([Type.String({ maxLength: 1000 }), t.Null()])),
};
const CustomFieldCreate = Type.Object(
  {
    resource: Type.String({ enum: RESOURCE_NAMES }),
    key: Type.String({ pattern: "^[a-z][a-z0-9_]{0,39}$" }),
    type: Type.String({ enum: [...CUSTOM_FIELD_TYPES] }),
    ...writable,
    label: Type.String({ minLength: 1, maxLength: 100 }),
  },
  {
    additionalProperties: false,
    title: "CustomFieldCreate",
    examples: [{ resource: "workers", key: "union_no", label: "Union number", type: "text" }],
  },
);
const CustomFieldUpdate = Type.Object(writable, {
  additionalProperties: false,
  title: "CustomFieldUpdate",
  examples: [{ label: "Union card number" }],
});
const Change = Type.Object({ from: Type.Unknown(), to: Type.Unknown() });
const Written = (title: string, members: Record<string, TSchema>) =>
  Type.Object(
    {
      id: t.Union([Type.Integer(), t.Null()]),
      dry_run: Type.Boolean(),
      ...members,
      record: Type.Optional(CustomFieldSchema),
    },
    { additionalProperties: false, title },
  );
const Created = Written("CustomFieldCreated", { created: Type.Boolean() });
const Updated = Written("CustomFieldUpdated", {
  updated: Type.Boolean(),
  changes: Type.Record(Type.String(), Change),
});
const Deleted = Written("CustomFieldDeleted", {
  deleted: Type.Boolean(),
  values_cleared: Type.Integer({ description: "Values cleared (or that would be)." }),
});

const memberId = configMemberId("custom field");

const listParsers = {
  resource: described(oneOfParam(RESOURCE_NAMES), "Only the fields of this resource."),
};

const writeDoc = configWriteDoc(CUSTOM_FIELDS_WRITE, TAGS, [
  "IdempotencyKey",
  "XDryRun",
  "IfMatch",
]);

/** The ETag a GET of the definition answers (If-Match compares with it). */
const etagHeader = (field: CustomField) => ({ etag: etagOf(JSON.stringify({ data: field })) });

function readRoutes(app: AdmittedApp, deps: RouteDeps): void {
  app.get(
    PATH,
    async ({ company, request, set }) => {
      const query = parseQuery(request.url, listParsers);
      const fields = await readCustomFields(deps.db, company.id);
      const data = query.resource ? fields.filter((f) => f.resource === query.resource) : fields;
      return readResponse({ request, set }, { data });
    },
    {
      detail: operationDetail({
        operationId: "listCustomFields",
        scope: [...ANY_READ_SCOPES, CUSTOM_FIELDS_WRITE],
        summary: "List custom fields",
        description: "The company's own fields, oldest first; `resource` narrows to one resource.",
        tags: TAGS,
        query: listParsers,
        refusals: ["invalid_query"],
        responses: { 200: { description: "Every field.", headers: ["ETag"] } },
      }),
      response: { 200: arrayEnvelope(CustomFieldSchema, "CustomFieldList") },
    },
  );
  app.get(
    MEMBER,
    async ({ company, params, request, set }) => {
      parseQuery(request.url, {});
      const id = memberId(params);
      const field = await findCustomField(deps.db, company.id, id);
      if (!field) throw notFound("custom field", id);
      return readResponse({ request, set }, { data: field });
    },
    {
      detail: operationDetail({
        operationId: "getCustomField",
        scope: [...ANY_READ_SCOPES, CUSTOM_FIELDS_WRITE],
        summary: "Get one custom field",
        tags: TAGS,
        refusals: ["invalid_query", "not_found"],
        responses: { 200: { description: "The field.", headers: ["ETag"] } },
      }),
      response: { 200: itemEnvelope(CustomFieldSchema, "CustomFieldItem") },
    },
  );
}

function createRoute(app: AdmittedApp, deps: RouteDeps): void {
  configWriteRoute(app, deps, {
    method: "POST",
    path: PATH,
    write: (tx, body, { company, ctx }) => createCustomField(tx, company, body, ctx.dryRun),
    respond: ({ field }): Answer =>
      field
        ? {
            status: 201,
            body: { data: { id: field.id, created: true, dry_run: false, record: field } },
            headers: { location: `${PATH}/${field.id}`, ...etagHeader(field) },
          }
        : { status: 200, body: { data: { id: null, created: false, dry_run: true } } },
    detail: operationDetail({
      operationId: "createCustomField",
      summary: "Create a custom field",
      description:
        "A field of your own on one resource. `key` (never changes) names it in " +
        "`custom_fields` of each record and in list filters (`cf.<key>`); `label` is what " +
        "spreadsheets show. Each plan allows a number of fields per resource (free 5, pro 50, " +
        "enterprise 200; 402 quota_exceeded).",
      ...writeDoc([
        ...BODY_REFUSALS,
        "quota_exceeded",
        "unique_violation",
        "custom_field_conflict",
      ]),
      body: CustomFieldCreate,
      responses: {
        201: { description: "Created.", headers: ["Location", "ETag", "IdempotentReplayed"] },
        200: { description: "Dry-run: it would be created." },
      },
    }),
    response: createdOrPreviewed(itemEnvelope(Created)),
  });
}

function changeRoutes(app: AdmittedApp, deps: RouteDeps): void {
  configWriteRoute(app, deps, {
    method: "PATCH",
    path: MEMBER,
    write: (tx, body, { company, ctx, params }) =>
      updateCustomField(tx, company, memberId(params), body, ctx),
    respond: ({ field, changes, dryRun }) => ({
      status: 200,
      body: {
        data: {
          id: field.id,
          updated: !dryRun && Object.keys(changes).length > 0,
          dry_run: dryRun,
          changes,
          record: field,
        },
      },
      headers: dryRun ? {} : etagHeader(field),
    }),
    detail: operationDetail({
      operationId: "updateCustomField",
      summary: "Update a custom field",
      description:
        "Changes label, required, unique, sensitive, options or description; `key`, " +
        "`resource` and `type` never change (409 custom_field_conflict for a type). A change " +
        "the stored values would break (required with records lacking a value, unique with " +
        "duplicates, a choice in use dropped, a shorter max_length) is 409 " +
        "custom_field_conflict with how many records and up to 10 ids; its dry-run answers " +
        "the same.",
      ...writeDoc([
        ...BODY_REFUSALS,
        "not_found",
        "precondition_failed",
        "unique_violation",
        "custom_field_conflict",
      ]),
      body: CustomFieldUpdate,
      responses: { 200: { description: "Updated.", headers: ["ETag", "IdempotentReplayed"] } },
    }),
    response: { 200: itemEnvelope(Updated) },
  });
  configWriteRoute(app, deps, {
    method: "DELETE",
    path: MEMBER,
    write: (tx, _body, { company, ctx, params }) =>
      deleteCustomField(tx, company, memberId(params), ctx),
    respond: ({ id, cleared, dryRun }) => ({
      status: 200,
      body: { data: { id, deleted: !dryRun, dry_run: dryRun, values_cleared: cleared } },
    }),
    takesBody: false,
    detail: operationDetail({
      operationId: "deleteCustomField",
      summary: "Delete a custom field",
      description:
        "Deletes the field and clears its values from every record (`values_cleared`; a " +
        "dry-run says how many it would clear).",
      ...writeDoc(["not_found", "precondition_failed"]),
      responses: { 200: { description: "Deleted.", headers: ["IdempotentReplayed"] } },
    }),
    response: { 200: itemEnvelope(Deleted) },
  });
}

export function customFieldRoutes(deps: RouteDeps): AdmittedApp {
  const app = admitted("custom-fields", "api", deps.admission);
  readRoutes(app, deps);
  createRoute(app, deps);
  changeRoutes(app, deps);
  return app;
}
