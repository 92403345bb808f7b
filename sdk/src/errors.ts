// Public error classes and their field types.
export {
  ApiConnectionError,
  ApiTimeoutError,
  ApiUserAbortError,
  AuthenticationError,
  BadRequestError,
  type ConflictCode,
  ConflictError,
  ErpError,
  type ErrorCode,
  type FieldError,
  InternalServerError,
  NotFoundError,
  PaymentRequiredError,
  PreconditionFailedError,
  RateLimitError,
  ValidationError,
} from "./core/errors.ts";
