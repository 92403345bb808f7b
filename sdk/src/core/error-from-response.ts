// Turns an HTTP error response into an ErpError of the class its status calls for (errors.ts).
import { errorClassFor, type ErpError, type FieldError } from "./errors.ts";

interface Problem {
  title?: unknown;
  detail?: unknown;
  code?: unknown;
  request_id?: unknown;
  errors?: unknown;
}

/** Builds the error for a non-2xx response from its status, RFC 9457 body and headers. */
export function errorFromResponse(status: number, body: unknown, headers: Headers): ErpError {
  const problem: Problem = typeof body === "object" && body !== null ? body : {};
  const errors = Array.isArray(problem.errors) ? (problem.errors as FieldError[]) : [];
  const code = typeof problem.code === "string" ? problem.code : `http_${status}`;
  const detail =
    typeof problem.detail === "string"
      ? problem.detail
      : typeof problem.title === "string"
        ? problem.title
        : `HTTP ${status}`;
  const fields = errors.length
    ? ` (${errors.map((e) => `${e.field}: ${e.message}`).join("; ")})`
    : "";
  const ErrorClass = errorClassFor(status);
  return new ErrorClass({
    status,
    code,
    message: `${status} ${code}: ${detail}${fields}`,
    requestId:
      typeof problem.request_id === "string"
        ? problem.request_id
        : (headers.get("x-request-id") ?? undefined),
    errors,
    headers,
    body,
  });
}
