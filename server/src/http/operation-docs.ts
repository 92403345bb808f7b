// How a route documents itself in its `detail`: query parameters taken from its own parsers,
// the headers it reads and sends, and the refusals it may answer with, under the status the
// catalogue gives each code (refusals/catalogue.ts). The shared pieces
// (Problem, header parameters, response headers) become components of the OpenAPI document.
import type { TSchema } from "@sinclair/typebox";
import type { DocumentDecoration } from "elysia";
import { statusOf, type RefusalCode } from "../refusals/catalogue.ts";
import type { ParamParser } from "./query.ts";

const ref = (kind: "parameters" | "headers", name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

/** Request headers the API reads, as reusable parameters. */
export const HEADER_PARAMETERS = {
  XRequestId: {
    name: "X-Request-Id",
    in: "header",
    required: false,
    description:
      "Your id for this request: 1-128 characters of A-Z, a-z, 0-9 and `._:-`. Echoed in the " +
      "response, in errors and in the events the request writes. Absent or in any other " +
      "shape, it is replaced by a generated one (never echoed or stored).",
    schema: { type: "string", minLength: 1, maxLength: 128, pattern: "^[A-Za-z0-9._:-]{1,128}$" },
  },
  Traceparent: {
    name: "traceparent",
    in: "header",
    required: false,
    description:
      "W3C Trace Context: the request joins your trace (its span's parent is the one named " +
      "here). Absent or malformed, the request starts a trace of its own.",
    schema: { type: "string", pattern: "^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$" },
  },
  IdempotencyKey: {
    name: "Idempotency-Key",
    in: "header",
    required: false,
    description:
      "Makes the write safe to retry: the first request runs, a retry with the same key and the " +
      "same request gets the stored result back (`Idempotent-Replayed: true`) for 24 " +
      "hours. Reusing the key for a different request is 409 idempotency_key_reuse; a " +
      "retry while the first still runs is 409 idempotency_in_progress. 1-255 printable " +
      "ASCII characters; scoped to your company.",
    schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x20-\\x7E]+$" },
  },
  XDryRun: {
    name: "X-Dry-Run",
    in: "header",
    required: false,
    description:
      "`1` (or `true`) runs every validation, reference, quota, transition and delete rule and " +
      "answers as the write would, but writes nothing and consumes no id. Same as the " +
      "`dry_run=1` query parameter. Any header value other than `0` or `false` counts as a " +
      "dry-run, so a misspelt switch never writes. Dry-runs are metered.",
    schema: { type: "string", enum: ["1", "0", "true", "false"] },
  },
  IfMatch: {
    name: "If-Match",
    in: "header",
    required: false,
    description:
      "An ETag from a GET of this record (or `*`). When it no longer matches the record, " +
      "nothing changes and the answer is 412 precondition_failed: optimistic concurrency " +
      "for read-modify-write.",
    schema: { type: "string" },
  },
  Prefer: {
    name: "Prefer",
    in: "header",
    required: false,
    description:
      "`return=representation` (RFC 7240): the answer carries the whole record as GET returns " +
      "it in `data.record` (a PATCH and an upsert's update always do), with " +
      "`Preference-Applied: return=representation`; a create then needs no GET for its " +
      "defaults or its ETag. Real writes only: a dry-run create answers without it.",
    schema: { type: "string", examples: ["return=representation"] },
  },
  IfNoneMatch: {
    name: "If-None-Match",
    in: "header",
    required: false,
    description:
      "The ETag of a response you hold. When the body would be the same, the answer is 304 Not " +
      "Modified with an empty body.",
    schema: { type: "string" },
  },
} as const;

/** Response headers, as reusable components. */
export const RESPONSE_HEADERS = {
  XRequestId: {
    description:
      "The request's id: the one you sent in X-Request-Id when it matches " +
      "^[A-Za-z0-9._:-]{1,128}$, else a generated one.",
    schema: { type: "string" },
  },
  Traceparent: {
    description:
      "W3C Trace Context of this request: your trace id (or a new one) and the span of this " +
      "request, as the server's logs and traces name them.",
    schema: { type: "string" },
  },
  ETag: {
    description:
      "Strong validator of this exact body; send it back in If-None-Match (reads) or If-Match (writes).",
    schema: { type: "string" },
  },
  Location: { description: "Path of the created record.", schema: { type: "string" } },
  IdempotentReplayed: {
    description:
      "`true` when this is the stored result of an earlier request with the same Idempotency-Key.",
    schema: { type: "string", enum: ["true"] },
  },
  PreferenceApplied: {
    description:
      "`return=representation` when the answer carries the whole record, as `Prefer` asked.",
    schema: { type: "string", enum: ["return=representation"] },
  },
  RetryAfter: {
    description: "Seconds to wait before retrying.",
    schema: { type: "integer", minimum: 0 },
  },
  WWWAuthenticate: { description: "`Bearer`: how to authenticate.", schema: { type: "string" } },
  RateLimitLimit: {
    description:
      "Requests allowed per one-minute window for your company. The three RateLimit headers are " +
      "absent when your plan has no request limit.",
    schema: { type: "integer" },
  },
  RateLimitRemaining: {
    description: "Requests left in the current window.",
    schema: { type: "integer" },
  },
  RateLimitReset: { description: "Seconds until the window resets.", schema: { type: "integer" } },
} as const;

type HeaderParameter = keyof typeof HEADER_PARAMETERS;
type ResponseHeader = keyof typeof RESPONSE_HEADERS;

const RESPONSE_HEADER_NAMES: Record<ResponseHeader, string> = {
  XRequestId: "X-Request-Id",
  Traceparent: "traceparent",
  ETag: "ETag",
  Location: "Location",
  IdempotentReplayed: "Idempotent-Replayed",
  PreferenceApplied: "Preference-Applied",
  RetryAfter: "Retry-After",
  WWWAuthenticate: "WWW-Authenticate",
  RateLimitLimit: "RateLimit-Limit",
  RateLimitRemaining: "RateLimit-Remaining",
  RateLimitReset: "RateLimit-Reset",
};

const ERROR_STATUSES: Record<number, { text: string; headers?: ResponseHeader[] }> = {
  400: { text: "Bad Request" },
  401: {
    text: "Unauthorized: token missing, unknown, revoked or expired",
    headers: ["WWWAuthenticate"],
  },
  402: { text: "Payment Required" },
  403: {
    text: "Forbidden: the token lacks the scope this operation needs (named in WWW-Authenticate)",
    headers: ["WWWAuthenticate"],
  },
  404: { text: "Not Found" },
  408: {
    text: "Request Timeout: the body did not arrive within 10 s of the request; the connection is closed",
  },
  409: { text: "Conflict", headers: ["RetryAfter"] },
  410: { text: "Gone: the cursor points before what is kept" },
  412: { text: "Precondition Failed: ETag carries the record's current tag", headers: ["ETag"] },
  413: {
    text:
      "Content Too Large: the body is over 1 MiB, however it is sent (Content-Length, " +
      "chunked, Expect: 100-continue)",
  },
  415: { text: "Unsupported Media Type: send the body as application/json" },
  416: {
    text: "Range Not Satisfiable: the range lies outside the file; Content-Range says its size",
  },
  422: { text: "Unprocessable Content: every failing field is listed in `errors`" },
  429: { text: "Too Many Requests: over your company's rate limit", headers: ["RetryAfter"] },
  503: {
    text:
      "Service Unavailable: the database cannot be reached or did not answer in time; retry " +
      "after Retry-After. `database_unavailable`: nothing was changed. " +
      "`commit_outcome_unknown` (a write): the database stopped answering while the write " +
      "was being committed and whether it was is not known; send it again with the same " +
      "Idempotency-Key",
    headers: ["RetryAfter"],
  },
};

/** The refusals every authenticated data request may meet, before its own. */
const ADMISSION_REFUSALS: readonly RefusalCode[] = [
  "unauthorized",
  "feature_off",
  "rate_limited",
  "database_unavailable",
];

/** Codes by their status, each once, in the order first given. */
function byStatus(codes: readonly RefusalCode[]): Map<number, RefusalCode[]> {
  const grouped = new Map<number, RefusalCode[]>();
  for (const code of new Set(codes)) {
    const status = statusOf(code);
    grouped.set(status, [...(grouped.get(status) ?? []), code]);
  }
  return grouped;
}

/**
 * Marks, in a route's `detail`, an operation any token may do to itself (revoking itself),
 * whatever its scopes (auth/route-scopes.ts). A symbol: never part of the document.
 */
export const OWN_TOKEN = Symbol("a token may do this to itself");

/**
 * Who may call an operation: no token at all (`public`), or a token holding `scope`, or any one of
 * several (`[]`: any token). It becomes the operation's security requirement, which admission
 * enforces (docs/tokens.md).
 */
export type OperationAccess =
  | { public: true; scope?: undefined }
  | { public?: false; scope: string | readonly string[]; ownToken?: true };

export interface OperationDocFields {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** The route's query parsers: documented exactly as they parse. */
  query?: Record<string, ParamParser<unknown>>;
  headers?: HeaderParameter[];
  /** Success (and 304) statuses: their description and the headers they carry. */
  responses: Record<
    number,
    { description: string; headers?: ResponseHeader[]; content?: Record<string, unknown> }
  >;
  /** The refusals it may answer with beyond admission's (which every authenticated operation has). */
  refusals?: readonly RefusalCode[];
  /** The JSON request body's schema; the server parses and validates bodies itself. */
  body?: TSchema;
  /** Specification extensions (`x-…` members) of the operation. */
  extensions?: Record<`x-${string}`, unknown>;
}

export type OperationDoc = OperationDocFields & OperationAccess;

/** The scope an operation needs, said at the start of its description (the reference page shows it). */
function scopeNote(doc: OperationAccess): string | undefined {
  if (doc.public) return undefined;
  const scopes = typeof doc.scope === "string" ? [doc.scope] : doc.scope;
  if (scopes.length === 0) return "**Scope:** any token.";
  if (scopes.length === 1) return `**Scope:** \`${scopes[0]}\`.`;
  return "**Scope:** any read scope.";
}

/** The security requirement: each scope that would do, one requirement each (any one suffices). */
function securityOf(doc: OperationAccess): Record<string, string[]>[] {
  if (doc.public) return [];
  const scopes = typeof doc.scope === "string" ? [doc.scope] : doc.scope;
  return scopes.length === 0
    ? [{ bearerAuth: [] }]
    : scopes.map((scope) => ({ bearerAuth: [scope] }));
}

function responseHeaders(names: readonly ResponseHeader[], authenticated: boolean) {
  const all: ResponseHeader[] = [
    "XRequestId",
    "Traceparent",
    ...names,
    ...(authenticated ? (["RateLimitLimit", "RateLimitRemaining", "RateLimitReset"] as const) : []),
  ];
  return Object.fromEntries(
    [...new Set(all)].map((name) => [RESPONSE_HEADER_NAMES[name], ref("headers", name)]),
  );
}

/** Problem details whose `code` is one of `codes`: what this response of this operation can say. */
const problemContent = (codes: readonly string[]) => ({
  "application/problem+json": {
    schema: {
      allOf: [
        { $ref: "#/components/schemas/Problem" },
        { type: "object", properties: { code: { type: "string", enum: [...codes] } } },
      ],
    },
  },
});

/** Failures of no particular operation: a bug (never with a stack trace or SQL). */
const UNEXPECTED_CODES = ["internal"] as const;

/** The `detail` of a route: everything the OpenAPI document says beyond its body and response schemas. */
export function operationDetail(doc: OperationDoc): DocumentDecoration {
  const authenticated = !doc.public;
  const parameters = [
    ...Object.entries(doc.query ?? {}).map(([name, parser]) => ({
      name,
      in: "query",
      required: false,
      ...parser.doc,
    })),
    ...[...(doc.headers ?? []), "XRequestId" as const, "Traceparent" as const].map((name) =>
      ref("parameters", name),
    ),
  ];
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(doc.responses)) {
    responses[status] = {
      description: response.description,
      headers: responseHeaders(response.headers ?? [], authenticated),
      ...(response.content ? { content: response.content } : {}),
    };
  }
  const security = securityOf(doc);
  const scoped = security.some((requirement) => (requirement.bearerAuth ?? []).length > 0);
  for (const [status, codes] of byStatus([
    ...(authenticated ? ADMISSION_REFUSALS : []),
    ...(scoped ? (["insufficient_scope"] as const) : []),
    ...(doc.refusals ?? []),
  ])) {
    const known = ERROR_STATUSES[status];
    if (!known) throw new Error(`${doc.operationId}: no description for error status ${status}`);
    responses[status] = {
      description: `${known.text}. Codes: ${codes.map((code) => `\`${code}\``).join(", ")}.`,
      headers: responseHeaders(known.headers ?? [], authenticated),
      content: problemContent(codes),
    };
  }
  responses.default = {
    description:
      "Any other error: 500 `internal`, as problem details; never with a stack trace or SQL.",
    headers: responseHeaders([], false),
    content: problemContent(UNEXPECTED_CODES),
  };
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    description: [scopeNote(doc), doc.description].filter(Boolean).join(" "),
    tags: doc.tags,
    parameters,
    ...(doc.body
      ? { requestBody: { required: true, content: { "application/json": { schema: doc.body } } } }
      : {}),
    responses,
    security,
    ...(!doc.public && doc.ownToken ? { [OWN_TOKEN]: true } : {}),
    ...doc.extensions,
  } as DocumentDecoration;
}
