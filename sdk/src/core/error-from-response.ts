// Turns an HTTP error response into the matching ErpError subclass: the one place status maps to class.
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ErpError,
  type FieldError,
  InternalServerError,
  NotFoundError,
  PaymentRequiredError,
  PreconditionFailedError,
  RateLimitError,
  ValidationError,
} from "./errors.ts";

const CLASS_BY_STATUS: Record<number, typeof ErpError> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: PaymentRequiredError,
  404: NotFoundError,
  409: ConflictError,
  412: PreconditionFailedError,
  422: ValidationError,
  429: RateLimitError,
};

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
  const detail = typeof problem.detail === "string"
    ? problem.detail
    : typeof problem.title === "string"
    ? problem.title
    : `HTTP ${status}`;
  const fields = errors.length ? ` (${errors.map((e) => `${e.field}: ${e.message}`).join("; ")})` : "";
  const ErrorClass = CLASS_BY_STATUS[status] ?? (status >= 500 ? InternalServerError : ErpError);
  return new ErrorClass({
    status,
    code,
    message: `${status} ${code}: ${detail}${fields}`,
    requestId: typeof problem.request_id === "string" ? problem.request_id : headers.get("x-request-id") ?? undefined,
    errors,
    headers,
    body,
  });
}
