// The one error handler: every failure, ours or Elysia's, leaves as an RFC 9457 problem.
import { Elysia } from "elysia";
import {
  CommitOutcomeUnknownError,
  databaseErrorKind,
  databaseErrorName,
  duplicateValueKey,
  errorLabel,
} from "../db/errors.ts";
import { log } from "../base/log.ts";
import { traceparentOf } from "../telemetry/trace-context.ts";
import {
  commitOutcomeUnknown,
  databaseUnavailable,
  internal,
  malformedJson,
  methodNotAllowed,
  routeNotFound,
  uniqueValueTaken,
} from "../refusals/catalogue.ts";
import { Refusal } from "../refusals/refusal.ts";
import { giveBack } from "./give-back.ts";
import { problemResponse } from "./problem.ts";
import { contextOf } from "./request-context.ts";

/** Which methods a path is served for; lets an unknown method say 405, not 404. */
export type MethodLookup = (pathname: string) => string[];

/**
 * Our own refusals pass through; a database that cannot answer is 503; a unique value the index
 * refused (a write that took it at the same moment and outran every new attempt) is the 409 the
 * server's own check gives; anything else is a bug.
 */
function classify(error: unknown): Refusal {
  if (error instanceof Refusal) return error;
  if (error instanceof CommitOutcomeUnknownError) return commitOutcomeUnknown();
  const kind = databaseErrorKind(error);
  const taken = kind === "duplicate" ? duplicateValueKey(error) : undefined;
  if (taken) return uniqueValueTaken(taken.field, taken.table);
  // A lock wait or conflict still unresolved when the budget ran out: the database did not answer in time.
  if (kind === "unavailable" || kind === "lock_wait" || kind === "retryable")
    return databaseUnavailable();
  return internal();
}

function routeError(
  code: string | number,
  error: unknown,
  request: Request,
  methodsFor: MethodLookup,
): Refusal {
  if (code === "NOT_FOUND") {
    const path = new URL(request.url).pathname;
    const allowed = methodsFor(path);
    return allowed.length > 0
      ? methodNotAllowed(request.method, path, allowed)
      : routeNotFound(request.method, path);
  }
  if (code === "PARSE" && error instanceof SyntaxError)
    return malformedJson("The request body is not valid JSON.");
  return classify(error);
}

/**
 * Elysia wraps whatever is thrown while it parses a body in a PARSE error (our routes leave
 * bodies to the write: auth/admission.ts).
 */
const unwrapped = (code: string | number, error: unknown): unknown =>
  code === "PARSE" && error instanceof Error && error.cause !== undefined ? error.cause : error;

/** Logs a failure the client sees as 5xx: the error's class, never SQL, parameters or bodies. */
function report(refusal: Refusal, error: unknown, request: Request, requestId: string): void {
  if (refusal.status === 503) {
    const name = errorLabel(error);
    log.throttled("warn", `db:${name}`, "database unavailable; answering 503", {
      error: name,
      request_id: requestId,
    });
    return;
  }
  const name = error instanceof Error ? error.name : typeof error;
  // A database error we did not expect is a bug too, but its message may quote SQL and values.
  const detail =
    databaseErrorName(error) ??
    (error instanceof Error ? (error.stack ?? error.message) : String(error));
  log.throttled("error", `internal:${name}:${detail.split("\n")[0]}`, "request failed", {
    request_id: requestId,
    trace_id: contextOf(request).trace.traceId,
    method: request.method,
    path: new URL(request.url).pathname,
    error: detail,
  });
}

export function errorHandler(methodsFor: MethodLookup) {
  return new Elysia({ name: "error-handler" }).onError(
    { as: "global" },
    ({ code, error, request, set }) => {
      const context = contextOf(request);
      const failure = unwrapped(code, error);
      const refusal = routeError(code, failure, request, methodsFor);
      if (refusal.status >= 500) report(refusal, failure, request, context.requestId);
      // A refused request does not count against the rate limit; a failure of ours does.
      else giveBack(request, "refused");
      const carried: Record<string, string> = {
        "x-request-id": context.requestId,
        traceparent: traceparentOf(context.trace),
      };
      for (const [name, value] of Object.entries(set.headers)) {
        if (/^ratelimit-|^retry-after$|^access-control-/i.test(name) && typeof value === "string")
          carried[name] = value;
      }
      return problemResponse(refusal, context.requestId, carried);
    },
  );
}

/** For an error that escaped Elysia itself: still a problem, never a page with source lines. */
export function lastResort(error: unknown): Response {
  const requestId = crypto.randomUUID();
  const refusal = classify(error);
  log.throttled("error", "last-resort", "request failed outside the app", {
    request_id: requestId,
    error: databaseErrorName(error) ?? (error instanceof Error ? error.name : typeof error),
  });
  return problemResponse(refusal, requestId, { "x-request-id": requestId });
}
