// Per-request context every handler reads: request id, company id, dry-run flag, idempotency key.
import { Elysia } from "elysia";

export interface RequestContext {
  requestId: string;
  receivedAt: number;
  /** The authenticated company; set by admission. */
  companyId?: number;
  dryRun: boolean;
  idempotencyKey?: string;
  /** Hash of method, path, dry-run flag and canonical body; set on keyed writes once the body is parsed. */
  fingerprint?: string;
  /** Set when a stored idempotent result is replayed instead of running the operation. */
  replayed: boolean;
  /** Set once the request is authenticated on a metered route; the usage meter counts it. */
  metered: boolean;
}

/** The methods that write; only they take an Idempotency-Key. */
export const WRITE_METHODS: ReadonlySet<string> = new Set(["POST", "PATCH", "PUT", "DELETE"]);

const REQUEST_ID = /^[\x21-\x7e]{1,200}$/;
const contexts = new WeakMap<Request, RequestContext>();

/** Fails safe: a request that asks for a dry-run in either place, in any spelling but 0/false, writes nothing. */
function dryRunRequested(request: Request): boolean {
  const header = request.headers.get("x-dry-run");
  if (header !== null && !["0", "false"].includes(header.trim().toLowerCase())) return true;
  const query = new URL(request.url).searchParams.get("dry_run");
  return query === "1" || query === "true";
}

/** The context of a request; created on first use so error paths always have one. */
export function contextOf(request: Request): RequestContext {
  let context = contexts.get(request);
  if (!context) {
    const sent = request.headers.get("x-request-id");
    context = {
      requestId: sent !== null && REQUEST_ID.test(sent) ? sent : crypto.randomUUID(),
      receivedAt: Date.now(),
      dryRun: dryRunRequested(request),
      idempotencyKey: WRITE_METHODS.has(request.method) ? (request.headers.get("idempotency-key") ?? undefined) : undefined,
      replayed: false,
      metered: false,
    };
    contexts.set(request, context);
  }
  return context;
}

export const requestContext = new Elysia({ name: "request-context" })
  .onRequest(({ request, set }) => {
    set.headers["x-request-id"] = contextOf(request).requestId;
  })
  .derive({ as: "global" }, ({ request }) => ({ ctx: contextOf(request) }));
