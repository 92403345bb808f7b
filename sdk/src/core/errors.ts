// The SDK's error hierarchy: one class per kind of refusal, so callers branch with instanceof.
import type { ApiErrorCode, ConflictCode, FieldError } from "../generated/types.ts";

/** One failing field of a 422 (or a blocker of a 409 `delete_blocked`), as the API declares it. */
export type { FieldError };

/** A problem code the API declares, or one the SDK gives a failure without an answer; the server may add more. */
export type ErrorCode =
  | ApiErrorCode
  | "route_not_found"
  | "method_not_allowed"
  | "connection_error"
  | "timeout"
  | "aborted"
  | (string & Record<never, never>);

export type { ApiErrorCode, ConflictCode };

/** What an error was built from: the parsed problem body and the response headers. */
export interface ErrorInit {
  status: number | undefined;
  code: ErrorCode;
  message: string;
  requestId?: string | undefined;
  errors?: FieldError[] | undefined;
  headers?: Headers | undefined;
  body?: unknown;
  cause?: unknown;
}

/** Base class of every error the SDK throws. */
export class ErpError extends Error {
  /** HTTP status; undefined when no response arrived. */
  readonly status: number | undefined;
  /** The problem `code`, e.g. `validation_failed` or `invalid_transition`. */
  readonly code: ErrorCode;
  /** The server's `X-Request-Id`, to quote in a support request. */
  readonly requestId: string | undefined;
  /** Every failing field (422) at once; empty otherwise. */
  readonly errors: FieldError[];
  /** Response headers (`Retry-After`, `RateLimit-*`, …); empty when no response arrived. */
  readonly headers: Headers;
  /** The parsed response body, as sent. */
  readonly body: unknown;

  constructor(init: ErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.errors = init.errors ?? [];
    this.headers = init.headers ?? new Headers();
    this.body = init.body;
  }
}

/** 400: a bad query, body or idempotency key. */
export class BadRequestError extends ErpError {
  declare readonly status: 400;
}
/** 401: the token is missing, unknown, revoked or expired. */
export class AuthenticationError extends ErpError {
  declare readonly status: 401;
}
/** 402: `feature_off` (add-on missing) or `quota_exceeded` (plan limit reached). */
export class PaymentRequiredError extends ErpError {
  declare readonly status: 402;
}
/** 403: `insufficient_scope`: the token lacks the scope the operation needs (named in `message`). */
export class PermissionError extends ErpError {
  declare readonly status: 403;
}
/** 404: unknown, deleted or another company's record. */
export class NotFoundError extends ErpError {
  declare readonly status: 404;
}
/** 409: a state rule refused the write; `code` says which. */
export class ConflictError extends ErpError {
  declare readonly status: 409;
  declare readonly code: ConflictCode;
}
/** 412: `ifMatch` no longer matches the stored record. */
export class PreconditionFailedError extends ErpError {
  declare readonly status: 412;
}
/** 422: the body failed validation; `errors` lists every failing field. */
export class ValidationError extends ErpError {
  declare readonly status: 422;
}
/** 429: over the company's rate limit; `headers.get("retry-after")` says when to come back. */
export class RateLimitError extends ErpError {
  declare readonly status: 429;
}
/** 5xx: the server failed; the request is safe to retry with the same idempotency key. */
export class InternalServerError extends ErpError {}
/** No response: DNS, connection refused or reset, or a proxy that hung up. */
export class ApiConnectionError extends ErpError {
  declare readonly status: undefined;
}
/** No response within `timeoutMs`. */
export class ApiTimeoutError extends ApiConnectionError {}
/** The caller's `signal` aborted the request; `cause` is the signal's reason. */
export class ApiUserAbortError extends ErpError {
  declare readonly status: undefined;
}

const CLASS_BY_STATUS: Record<number, typeof ErpError> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: PaymentRequiredError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  412: PreconditionFailedError,
  422: ValidationError,
  429: RateLimitError,
};

/** The class of the error a response with this status becomes: the one place status maps to class. */
export const errorClassFor = (status: number): typeof ErpError =>
  CLASS_BY_STATUS[status] ?? (status >= 500 ? InternalServerError : ErpError);
