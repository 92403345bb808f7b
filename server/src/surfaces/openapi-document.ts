// The OpenAPI 3.1 document, generated from the app's live routes on every request: the route
// schemas as @elysiajs/openapi reads them, completed with each route's `detail` (parameters,
// success headers, errors), and every titled schema lifted into a named component.
import { toOpenAPISchema } from "@elysiajs/openapi";
import { unwrapSchema } from "@elysiajs/openapi/openapi";
import type { AnyElysia, TSchema } from "elysia";
import { IDENTIFIER_PATTERN } from "../resources/identifiers.ts";
import { RESOURCES } from "../resources/registry.ts";
import { HEADER_PARAMETERS, RESPONSE_HEADERS } from "../http/operation-docs.ts";
import { ProblemSchema } from "../refusals/problem-schema.ts";
import { OVERVIEW } from "./overview.ts";

export const OPENAPI_VERSION = "3.1.1";

// biome-ignore lint/suspicious/noExplicitAny: a JSON document built and walked freely
type Json = Record<string, any>;

const METHODS = new Set(["get", "post", "put", "patch", "delete"]);
const CHILD_MAPS = new Set(["properties", "patternProperties", "$defs", "dependentSchemas"]);
const CHILD_LISTS = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);
const CHILD_SCHEMAS = new Set([
  "items",
  "additionalProperties",
  "unevaluatedProperties",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "propertyNames",
]);

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Schemas with a `title` become `#/components/schemas/<title>`; two different ones may not share a title. */
class SchemaComponents {
  readonly schemas: Record<string, Json> = {};

  lift(schema: unknown): Json {
    if (!isObject(schema)) return schema as Json;
    const out: Json = {};
    for (const [key, value] of Object.entries(schema)) {
      if (CHILD_MAPS.has(key) && isObject(value))
        out[key] = Object.fromEntries(
          Object.entries(value).map(([name, child]) => [name, this.lift(child)]),
        );
      else if (CHILD_LISTS.has(key) && Array.isArray(value))
        out[key] = value.map((child) => this.lift(child));
      else if (CHILD_SCHEMAS.has(key) && isObject(value)) out[key] = this.lift(value);
      else out[key] = value;
    }
    // anyOf [anyOf [string, number], null] reads better flat: anyOf [string, number, null].
    if (Array.isArray(out.anyOf)) {
      out.anyOf = out.anyOf.flatMap((member: Json) => {
        if (
          !isObject(member) ||
          !Array.isArray(member.anyOf) ||
          Object.keys(member).some((key) => key !== "anyOf" && key !== "description")
        )
          return [member];
        out.description ??= member.description;
        return member.anyOf;
      });
    }
    // A nullable enum must list null among its values, or null fails validation.
    if (
      Array.isArray(out.type) &&
      out.type.includes("null") &&
      Array.isArray(out.enum) &&
      !out.enum.includes(null)
    )
      out.enum = [...out.enum, null];
    if (typeof out.title !== "string") return out;
    const name = out.title.replace(/[^A-Za-z0-9_.-]/g, "");
    const known = this.schemas[name];
    if (known && JSON.stringify(known) !== JSON.stringify(out))
      throw new Error(`two different schemas are titled ${name}`);
    this.schemas[name] = out;
    return { $ref: `#/components/schemas/${name}` };
  }

  liftContent(content: unknown): Json | undefined {
    if (!isObject(content)) return undefined;
    return Object.fromEntries(
      Object.entries(content).map(([type, media]) => [
        type,
        { ...media, schema: this.lift(media.schema) },
      ]),
    );
  }
}

const toJsonSchema = (schema: unknown): Json =>
  unwrapSchema(schema as TSchema, undefined, "input", OPENAPI_VERSION) as Json;

function pathParameters(path: string): Json[] {
  const segments = path.split("/");
  return segments.flatMap((segment, index): Json[] => {
    if (!segment.startsWith(":")) return [];
    const name = segment.slice(1);
    if (name === "external_id") {
      return [
        {
          name,
          in: "path",
          required: true,
          description:
            "Your own id of the record (its external_id), percent-encoded once as a path " +
            "segment: the server decodes it exactly once, so the id `100%` is sent as " +
            "`100%25` and `%41` as `%2541`. A malformed encoding (`%`, or bytes that are " +
            "not UTF-8) is a 422 on external_id.",
          schema: { type: "string", minLength: 1, maxLength: 255, pattern: IDENTIFIER_PATTERN },
          example: "crm-1042",
        },
      ];
    }
    const owner = name === "id" ? segments[index - 1] : name.replace(/_id$/, "s");
    return [
      {
        name,
        in: "path",
        required: true,
        description: `The id of a ${owner} record.`,
        schema: { type: "integer", minimum: 1 },
        example: 42,
      },
    ];
  });
}

function operationOf(
  route: { method: string; path: string; hooks: Json },
  generated: Json | undefined,
  components: SchemaComponents,
): Json {
  const detail: Json = route.hooks.detail ?? {};
  const {
    parameters: _generatedParameters,
    requestBody: _generatedBody,
    responses: generatedResponses = {},
    hide: _hide,
    ...rest
  } = generated ?? {};
  const operation: Json = { ...rest };
  const parameters = [...pathParameters(route.path), ...(detail.parameters ?? [])].map(
    (parameter) =>
      isObject(parameter.schema)
        ? { ...parameter, schema: components.lift(parameter.schema) }
        : parameter,
  );
  if (parameters.length > 0) operation.parameters = parameters;
  // Bodies are parsed and validated by the server itself; the route's detail documents them. A
  // body that is not JSON (an attachment's bytes) is documented as its detail says it.
  const bodies: Json = detail.requestBody?.content ?? {};
  const body = bodies["application/json"]?.schema;
  if (body)
    operation.requestBody = {
      required: true,
      content: { "application/json": { schema: components.lift(toJsonSchema(body)) } },
    };
  else if (Object.keys(bodies).length > 0)
    operation.requestBody = { required: true, content: bodies };
  const declared: Json = detail.responses ?? {};
  const responses: Json = {};
  for (const status of [
    ...new Set([...Object.keys(generatedResponses), ...Object.keys(declared)]),
  ].sort()) {
    const merged = { ...generatedResponses[status], ...declared[status] };
    // The route's response schema (application/json) and any other media type its detail declares,
    // the declared ones built with TypeBox said in JSON Schema as the generated ones are (a
    // nullable field as a type list), so a record nested in either is the same component.
    const declaredContent = Object.entries((declared[status]?.content ?? {}) as Json).map(
      ([type, media]) => [type, { ...media, schema: toJsonSchema(media.schema) ?? media.schema }],
    );
    const both = {
      ...(generatedResponses[status]?.content ?? {}),
      ...Object.fromEntries(declaredContent),
    };
    const content = components.liftContent(Object.keys(both).length > 0 ? both : undefined);
    if (content) merged.content = content;
    else delete merged.content;
    responses[status] = merged;
  }
  operation.responses = responses;
  return operation;
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  ...Object.fromEntries(RESOURCES.map((def) => [def.name, def.description])),
  usage: "The calling company's metered requests this month and its plan quotas.",
  events:
    "The change feed: every committed change of the company's records, in commit order, followed by cursor.",
  webhooks:
    "Webhook endpoints: each matching event POSTed to your URL, signed (ERP-Signature), retried " +
    "for 24 hours; the deliveries log.",
  lookups:
    "The company's own lists of names its records point at, seeded for every company and then " +
    "managed by it: trades (API add-on) and equipment categories (equipment add-on). Names are " +
    "unique ignoring case and surrounding spaces; reading needs any read scope, writing " +
    "`lookups:write`.",
  attachments:
    "Files on records (certificates, signed estimates, photos): uploaded as the raw body, " +
    "downloaded as a stream or by a signed link; guarded by the record's resource scopes.",
  health: "Liveness and database reachability; no token.",
  specification:
    "This document, the interactive reference and the API-client collection; no token, not metered.",
};

/** The document for `app`, naming `origin` (how the client reached us) as its server. */
export function openApiDocument(app: AnyElysia, origin = "/"): Json {
  const generated = toOpenAPISchema(
    app,
    { staticFile: false },
    undefined,
    undefined,
    OPENAPI_VERSION,
  ) as Json;
  const components = new SchemaComponents();
  components.lift(toJsonSchema(ProblemSchema));
  const paths: Record<string, Json> = {};
  const tags: string[] = [];
  for (const route of app.routes as { method: string; path: string; hooks: Json }[]) {
    const method = route.method.toLowerCase();
    if (route.hooks?.detail?.hide || !METHODS.has(method)) continue;
    const path = route.path.replace(/:([^/]+)/g, "{$1}");
    const operation = operationOf(route, generated.paths[path]?.[method], components);
    for (const tag of operation.tags ?? []) if (!tags.includes(tag)) tags.push(tag);
    paths[path] ??= {};
    paths[path][method] = operation;
  }
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: "Construction ERP API",
      version: "1.0.0",
      contact: {
        name: "Construction ERP API team",
        url: "https://github.com/construction-erp/api",
      },
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
      description: OVERVIEW,
    },
    // The server that served this document, as the client reached it (X-Forwarded-* behind a proxy).
    servers: [{ url: origin, description: "The server that served this document." }],
    security: [{ bearerAuth: [] }],
    tags: tags.map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? name })),
    paths,
    components: {
      schemas: components.schemas,
      parameters: HEADER_PARAMETERS,
      headers: RESPONSE_HEADERS,
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "An API token issued to your company: `Authorization: Bearer <token>`.",
        },
      },
    },
  };
}

/**
 * Where a response goes in `responses`: success first, the normal one leading (a create's 201
 * before its dry-run's 200: contract-test tools validate the first 2xx), then 304, the errors by
 * status, and `default` last.
 */
const statusRank = (status: string): number =>
  status === "default" ? 1000 : status === "201" ? 199 : Number(status);

/**
 * The document as JSON text with each operation's responses in `statusRank` order. A JavaScript
 * object always lists integer keys in ascending order, whatever the insertion order, so only the
 * text can put 201 before 200 (for the tools that read members in document order).
 */
export function documentText(document: Json): string {
  const ordered: string[] = [];
  const text = JSON.stringify(document, (key, value) => {
    if (key !== "responses" || !isObject(value)) return value;
    const statuses = Object.keys(value).sort((a, b) => statusRank(a) - statusRank(b));
    ordered.push(
      `{${statuses.map((status) => `${JSON.stringify(status)}:${JSON.stringify(value[status])}`).join(",")}}`,
    );
    return `\u0000responses:${ordered.length - 1}`;
  });
  return text.replace(/"\\u0000responses:(\d+)"/g, (_, index: string) => ordered[Number(index)]!);
}
