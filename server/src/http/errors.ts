// The one error handler: every failure, ours or Elysia's, leaves as an RFC 9457 problem.
import { Elysia } from "elysia";
import { databaseErrorKind, databaseErrorName, errorLabel } from "../db/errors.ts";
import { log } from "../base/log.ts";
import { ApiError, problemResponse } from "./problem.ts";
import { contextOf } from "./request-context.ts";

/** Which methods a path is served for; lets an unknown method say 405, not 404. */
export type MethodLookup = (pathname: string) => string[];

const RETRY_AFTER_SECONDS = "2";

export const databaseUnavailable = (): ApiError =>
  new ApiError(503, "database_unavailable", "The database cannot be reached or did not answer in time; nothing was changed by this request. Retry shortly (see Retry-After).",
    undefined, { "retry-after": RETRY_AFTER_SECONDS });

const internal = (): ApiError =>
  new ApiError(500, "internal", "Something went wrong on our side; the request id identifies it in our logs.");

/** Our own refusals pass through; a database that cannot answer is 503; anything else is a bug. */
function classify(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const kind = databaseErrorKind(error);
  // A lock wait or conflict still unresolved when the budget ran out: the database did not answer in time.
  if (kind === "unavailable" || kind === "lock_wait" || kind === "retryable") return databaseUnavailable();
  return internal();
}

function routeError(code: string | number, error: unknown, request: Request, methodsFor: MethodLookup): ApiError {
  if (code === "NOT_FOUND") {
    const path = new URL(request.url).pathname;
    const allowed = methodsFor(path);
    if (allowed.length > 0) {
      return new ApiError(405, "method_not_allowed", `${request.method} is not allowed on ${path}; use ${allowed.join(", ")}.`, undefined, { allow: allowed.join(", ") });
    }
    return new ApiError(404, "route_not_found", `No route ${request.method} ${path}. The API lives under /v1; see /v1/openapi.json.`);
  }
  if (code === "PARSE" && error instanceof SyntaxError) return new ApiError(400, "malformed_json", "The request body is not valid JSON.");
  return classify(error);
}

/** Elysia wraps whatever our parse hook throws (admission, body limits) in a PARSE error. */
const unwrapped = (code: string | number, error: unknown): unknown =>
  code === "PARSE" && error instanceof Error && error.cause !== undefined ? error.cause : error;

/** Logs a failure the client sees as 5xx: the error's class, never SQL, parameters or bodies. */
function report(apiError: ApiError, error: unknown, request: Request, requestId: string): void {
  if (apiError.status === 503) {
    const name = errorLabel(error);
    log.throttled("warn", `db:${name}`, "database unavailable; answering 503", { error: name, request_id: requestId });
    return;
  }
  const name = error instanceof Error ? error.name : typeof error;
  // A database error we did not expect is a bug too, but its message may quote SQL and values.
  const detail = databaseErrorName(error) ?? (error instanceof Error ? (error.stack ?? error.message) : String(error));
  log.throttled("error", `internal:${name}:${detail.split("\n")[0]}`, "request failed", { request_id: requestId, method: request.method, path: new URL(request.url).pathname, error: detail });
}

export function errorHandler(methodsFor: MethodLookup) {
  return new Elysia({ name: "error-handler" }).onError({ as: "global" }, ({ code, error, request, set }) => {
    const context = contextOf(request);
    const failure = unwrapped(code, error);
    const apiError = routeError(code, failure, request, methodsFor);
    if (apiError.status >= 500) report(apiError, failure, request, context.requestId);
    const carried: Record<string, string> = { "x-request-id": context.requestId };
    for (const [name, value] of Object.entries(set.headers)) {
      if (/^ratelimit-|^retry-after$|^access-control-/i.test(name) && typeof value === "string") carried[name] = value;
    }
    return problemResponse(apiError, context.requestId, carried);
  });
}

/** For an error that escaped Elysia itself: still a problem, never a page with source lines. */
export function lastResort(error: unknown): Response {
  const requestId = crypto.randomUUID();
  const apiError = classify(error);
  log.throttled("error", "last-resort", "request failed outside the app", { request_id: requestId, error: databaseErrorName(error) ?? (error instanceof Error ? error.name : typeof error) });
  return problemResponse(apiError, requestId, { "x-request-id": requestId });
}
