// The one error handler: every failure, ours or Elysia's, leaves as an RFC 9457 problem.
import { Elysia, ValidationError } from "elysia";
import { log } from "../log.ts";
import { ApiError, problemResponse, validationFailed, type FieldError } from "./problem.ts";
import { contextOf } from "./request-context.ts";

/** Which methods a path is served for; lets an unknown method say 405, not 404. */
export type MethodLookup = (pathname: string) => string[];

const DB_UNAVAILABLE = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "PROTOCOL_CONNECTION_LOST", "ER_CON_COUNT_ERROR", "ENOTFOUND", "EHOSTUNREACH"]);

function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  if ("code" in error && typeof error.code === "string" && DB_UNAVAILABLE.has(error.code)) return true;
  if ("fatal" in error && error.fatal === true) return true;
  return "cause" in error && isDatabaseUnavailable(error.cause);
}

function fieldOf(path: string): string {
  return path.replace(/^\//, "").replace(/\//g, ".") || "body";
}

/** TypeBox errors → one entry per failing field, in the words of the field's schema. */
export function bodyErrors(error: ValidationError): FieldError[] {
  const byField = new Map<string, FieldError>();
  for (const issue of error.all) {
    if (!("path" in issue)) continue;
    const schema = issue.schema as { description?: string; maxLength?: number };
    let field = fieldOf(issue.path);
    let entry: FieldError;
    const message = issue.message;
    if (/required property/i.test(message)) entry = { field, code: "required", message: `${field} is required.` };
    else if (/unexpected property/i.test(message) || /additional propert/i.test(message)) {
      entry = { field, code: "unknown_field", message: `${field} is not a writable field of this resource.` };
    } else if (field === "body") entry = { field, code: "invalid_type", message: "The body must be a JSON object." };
    else if (/length greater/i.test(message)) entry = { field, code: "too_short", message: `${field} must not be empty.` };
    else if (schema.maxLength !== undefined && /length less/i.test(message)) entry = { field, code: "too_long", message: `${field} must be at most ${schema.maxLength} characters.` };
    else entry = { field, code: "invalid_value", message: schema.description ? `${field}: ${schema.description}` : `${field}: ${message}.` };
    field = entry.field;
    if (!byField.has(field)) byField.set(field, entry);
  }
  if (byField.size === 0) byField.set("body", { field: "body", code: "invalid_type", message: "The body must be a JSON object." });
  return [...byField.values()];
}

function toApiError(code: string | number, error: unknown, request: Request, methodsFor: MethodLookup): ApiError {
  if (error instanceof ApiError) return error;
  // Elysia wraps whatever a parse hook throws; ours throws ApiErrors (401, 413, 415, 400).
  if (code === "PARSE" && error instanceof Error && error.cause instanceof ApiError) return error.cause;
  if (error instanceof ValidationError) {
    if (error.type === "body") return validationFailed(bodyErrors(error));
    if (error.type === "query") return new ApiError(400, "invalid_query", `Invalid query parameter: ${error.all[0] && "path" in error.all[0] ? `${fieldOf(error.all[0].path)}: ${error.all[0].message}` : error.message}.`);
    if (error.type === "params") return new ApiError(404, "not_found", "No record with that id.");
  }
  if (code === "NOT_FOUND") {
    const { pathname } = new URL(request.url);
    const allowed = methodsFor(pathname);
    if (allowed.length > 0) {
      return new ApiError(405, "method_not_allowed", `${request.method} is not allowed on ${pathname}; use ${allowed.join(", ")}.`, undefined, { allow: allowed.join(", ") });
    }
    return new ApiError(404, "route_not_found", `No route ${request.method} ${pathname}. The API lives under /v1; see /v1/openapi.json.`);
  }
  if (code === "PARSE") return new ApiError(400, "malformed_json", "The request body is not valid JSON.");
  if (isDatabaseUnavailable(error)) {
    return new ApiError(503, "database_unavailable", "The database cannot be reached right now; retry shortly.", undefined, { "retry-after": "2" });
  }
  return new ApiError(500, "internal", "Something went wrong on our side; the request id identifies it in our logs.");
}

export function errorHandler(methodsFor: MethodLookup) {
  return new Elysia({ name: "error-handler" }).onError({ as: "global" }, ({ code, error, request, set }) => {
    const context = contextOf(request);
    const apiError = toApiError(code, error, request, methodsFor);
    if (apiError.status >= 500) {
      log.error("request failed", { request_id: context.requestId, method: request.method, url: request.url, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
    const carried: Record<string, string> = { "x-request-id": context.requestId };
    for (const [name, value] of Object.entries(set.headers)) {
      if (/^ratelimit-|^retry-after$|^access-control-/i.test(name) && typeof value === "string") carried[name] = value;
    }
    return problemResponse(apiError, context.requestId, carried);
  });
}
