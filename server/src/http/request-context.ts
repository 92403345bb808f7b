// What a request brought, read once when it arrives: its id, when it came, whether it is a dry-run,
// its Idempotency-Key, If-Match and Prefer. Nothing is written to it later: what handling a request
// produces (its company, a replay) travels as values.
import { Elysia } from "elysia";
import { type TraceContext, traceOf, traceparentOf } from "../telemetry/trace-context.ts";
import { searchParamsOf } from "./query.ts";

export interface RequestContext {
  readonly requestId: string;
  readonly receivedAt: number;
  readonly dryRun: boolean;
  /** Only writes take one. */
  readonly idempotencyKey: string | undefined;
  readonly ifMatch: string | null;
  /** `Prefer: return=representation` (RFC 7240): the answer to a create or upsert carries the whole record. */
  readonly representation: boolean;
  /** Its W3C trace: the caller's `traceparent` continued, else a new trace. */
  readonly trace: TraceContext;
}

/** The methods that write; only they take an Idempotency-Key. */
export const WRITE_METHODS: ReadonlySet<string> = new Set(["POST", "PATCH", "PUT", "DELETE"]);

/** A client's X-Request-Id is used only in this shape; anything else is replaced, never echoed or stored. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Each request's context, kept on the request itself (a WeakMap entry per request cost more). */
const CONTEXT = Symbol("request context");

type WithContext = Request & { [CONTEXT]?: RequestContext };

/** Fails safe: a request that asks for a dry-run in either place, in any spelling but 0/false, writes nothing. */
function dryRunRequested(request: Request, headers: Headers): boolean {
  const header = headers.get("x-dry-run");
  if (header !== null && !["0", "false"].includes(header.trim().toLowerCase())) return true;
  const query = searchParamsOf(request.url)?.get("dry_run");
  return query === "1" || query === "true";
}

/** The context of a request; created on first use so error paths always have one. */
export function contextOf(request: Request): RequestContext {
  const known = (request as WithContext)[CONTEXT];
  if (known) return known;
  const headers = request.headers;
  const sent = headers.get("x-request-id");
  const prefer = headers.get("prefer");
  const context: RequestContext = {
    requestId: sent !== null && REQUEST_ID.test(sent) ? sent : crypto.randomUUID(),
    receivedAt: Date.now(),
    dryRun: dryRunRequested(request, headers),
    idempotencyKey: WRITE_METHODS.has(request.method)
      ? (headers.get("idempotency-key") ?? undefined)
      : undefined,
    ifMatch: headers.get("if-match"),
    representation: prefer !== null && /(^|[\s,;])return=representation\b/i.test(prefer),
    trace: traceOf(headers.get("traceparent")),
  };
  (request as WithContext)[CONTEXT] = context;
  return context;
}

export const requestContext = new Elysia({ name: "request-context" })
  .onRequest(({ request, set }) => {
    const ctx = contextOf(request);
    set.headers["x-request-id"] = ctx.requestId;
    set.headers.traceparent = traceparentOf(ctx.trace);
  })
  .derive({ as: "global" }, ({ request }) => ({ ctx: contextOf(request) }));
