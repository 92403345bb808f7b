// The catalogue of refusals (docs/errors.md): every code the API refuses a request with, its HTTP
// status, and the constructors that make each refusal with the sentence it says. Nothing else
// makes a Refusal; the OpenAPI document reads each declared code's status from here, and
// docs/errors.md explains every code.
import { Refusal, type FieldError, type RefusalParts } from "./refusal.ts";

const TITLES = {
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  412: "Precondition Failed",
  413: "Content Too Large",
  416: "Range Not Satisfiable",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
} as const;

/** Every refusal code and its status; the problem's `title` is the status's. */
export const CATALOGUE = {
  malformed_json: 400,
  invalid_query: 400,
  too_many_groups: 400,
  invalid_idempotency_key: 400,
  unauthorized: 401,
  insufficient_scope: 403,
  feature_off: 402,
  quota_exceeded: 402,
  not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  invalid_transition: 409,
  billing_mode_locked: 409,
  estimate_not_draft: 409,
  rental_billed: 409,
  delete_blocked: 409,
  not_deleted: 409,
  unique_violation: 409,
  custom_field_conflict: 409,
  idempotency_key_reuse: 409,
  idempotency_in_progress: 409,
  cursor_expired: 410,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  batch_failed: 422,
  digest_mismatch: 422,
  range_not_satisfiable: 416,
  rate_limited: 429,
  internal: 500,
  database_unavailable: 503,
  commit_outcome_unknown: 503,
} as const satisfies Record<string, keyof typeof TITLES>;

export type RefusalCode = keyof typeof CATALOGUE;

export const statusOf = (code: RefusalCode): number => CATALOGUE[code];

function refusal(code: RefusalCode, detail: string, parts?: RefusalParts): Refusal {
  const status = CATALOGUE[code];
  return new Refusal({ code, status, title: TITLES[status] }, detail, parts);
}

// The request itself.
export const malformedJson = (detail = "The request body is not valid JSON (UTF-8)."): Refusal =>
  refusal("malformed_json", detail);
export const invalidQuery = (detail: string): Refusal => refusal("invalid_query", detail);
export const tooManyGroups = (limit: number): Refusal =>
  refusal(
    "too_many_groups",
    `The report has more than ${limit} groups: group by fewer or coarser fields ` +
      `(month instead of day), or filter the records it covers.`,
  );
export const invalidIdempotencyKey = (): Refusal =>
  refusal(
    "invalid_idempotency_key",
    "Idempotency-Key must be 1 to 255 printable ASCII characters.",
  );
export const payloadTooLarge = (maxBytes: number): Refusal =>
  refusal("payload_too_large", `The request body is larger than ${maxBytes} bytes (1 MiB).`);
export const fileTooLarge = (maxBytes: number): Refusal =>
  refusal(
    "payload_too_large",
    `The file is larger than ${maxBytes} bytes (${maxBytes / 1024 / 1024} MiB), the most one attachment holds.`,
    { extensions: { limit: maxBytes } },
  );
export const digestMismatch = (detail: string): Refusal => refusal("digest_mismatch", detail);
export const rangeNotSatisfiable = (size: number): Refusal =>
  refusal(
    "range_not_satisfiable",
    `The file has ${size} bytes; the range asked for lies outside them.`,
    {
      headers: { "content-range": `bytes */${size}` },
    },
  );
export const requestTimeout = (seconds: number): Refusal =>
  refusal(
    "request_timeout",
    `The request body did not arrive within ${seconds} s of the request; send the request again ` +
      `with its whole body at once.`,
    // The rest of the body may still be on its way: the connection cannot carry another request.
    { headers: { connection: "close" } },
  );
export const unsupportedMediaType = (contentType: string | null): Refusal =>
  refusal(
    "unsupported_media_type",
    `Send the body as JSON with \`Content-Type: application/json\`${contentType ? `, not ${contentType}` : ""}.`,
  );
export const validationFailed = (errors: FieldError[]): Refusal =>
  refusal(
    "validation_failed",
    `The request body has ${errors.length} invalid field${errors.length === 1 ? "" : "s"}.`,
    { errors },
  );
/** A body that is not a JSON object: `shape` says what it must be (`a JSON object, e.g. {…}`). */
export const bodyNotObject = (shape: string): Refusal =>
  validationFailed([
    { field: "body", code: "invalid_type", message: `The body must be ${shape}.` },
  ]);
/** Each member of a body that its operation does not take; `instead` says what it takes. */
export const unknownFields = (names: readonly string[], instead: string): FieldError[] =>
  names.map((name) => ({
    field: name,
    code: "unknown_field",
    message: `${name} is not ${instead}.`,
  }));
export const invalidPathExternalId = (errors: FieldError[]): Refusal =>
  refusal("validation_failed", "The external id in the path is not a valid external_id.", {
    errors,
  });
export const routeNotFound = (method: string, path: string): Refusal =>
  refusal(
    "route_not_found",
    `No route ${method} ${path}. The API lives under /v1; see /v1/openapi.json.`,
  );
export const methodNotAllowed = (
  method: string,
  path: string,
  allowed: readonly string[],
): Refusal =>
  refusal("method_not_allowed", `${method} is not allowed on ${path}; use ${allowed.join(", ")}.`, {
    headers: { allow: allowed.join(", ") },
  });

// Admission: the token, the company's add-ons and its rate limit.
export const unauthorized = (detail: string): Refusal =>
  refusal("unauthorized", detail, { headers: { "www-authenticate": 'Bearer realm="erp"' } });
/** A token the server knows but that no longer works: RFC 6750's invalid_token, with the reason. */
export const invalidToken = (reason: "revoked" | "expired"): Refusal => {
  const detail = `The token was ${reason}; use another token (docs/tokens.md).`;
  return refusal("unauthorized", detail, {
    headers: {
      "www-authenticate": `Bearer realm="erp", error="invalid_token", error_description="The token was ${reason}"`,
    },
  });
};
/** `scope`: what the operation needs (any one of several: the first is named in the header). */
export const insufficientScope = (scopes: readonly string[]): Refusal =>
  refusal(
    "insufficient_scope",
    scopes.length === 1
      ? `This token lacks the scope ${scopes[0]}, which this operation needs.`
      : `This token lacks a read scope; this operation needs any one of ${scopes.join(", ")}.`,
    {
      headers: {
        "www-authenticate": `Bearer realm="erp", error="insufficient_scope", scope="${scopes.join(" ")}"`,
      },
    },
  );
export const featureOff = (missing: readonly string[]): Refusal =>
  refusal(
    "feature_off",
    `This endpoint needs the ${missing.join(" and ")} add-on${missing.length > 1 ? "s" : ""}, ` +
      `which your company does not have.`,
  );
/** `headers`: the RateLimit headers of the full window, which the answer carries with Retry-After. */
export const rateLimited = (
  plan: string,
  limit: number,
  resetSeconds: string,
  headers: Record<string, string>,
): Refusal =>
  refusal(
    "rate_limited",
    `Your ${plan} plan allows ${limit} requests a minute; retry in ${resetSeconds} s.`,
    { headers: { ...headers, "retry-after": resetSeconds } },
  );

// Records and the rules of their writes.
export const notFound = (what: string, id: number | string): Refusal =>
  refusal("not_found", `No ${what} with id ${id}.`);
export const quotaExceeded = (
  plan: string,
  resource: string,
  used: number,
  limit: number,
): Refusal =>
  refusal(
    "quota_exceeded",
    `Your ${plan} plan allows ${limit} live ${resource}; you have ${used}. Delete some or upgrade the plan.`,
    { extensions: { quota: { resource, used, limit } } },
  );
export const storageQuotaExceeded = (
  plan: string,
  used: number,
  adding: number,
  limit: number,
): Refusal =>
  refusal(
    "quota_exceeded",
    `Your ${plan} plan keeps ${limit} bytes of attachments; you have ${used}, and this file would add ${adding}. Delete some or upgrade the plan.`,
    { extensions: { quota: { resource: "storage_bytes", used, limit } } },
  );
export const invalidInitialStatus = (
  what: string,
  initial: readonly string[],
  status: unknown,
): Refusal =>
  refusal(
    "invalid_transition",
    `A new ${what} starts in ${initial.join(" or ")}, not ${String(status)}.`,
  );
export function invalidTransition(
  singular: string,
  id: number,
  from: unknown,
  to: unknown,
  allowed: readonly string[],
): Refusal {
  const next = allowed.length
    ? `From ${String(from)} it may go to ${allowed.join(", ")}.`
    : `${String(from)} is final.`;
  return refusal(
    "invalid_transition",
    `${singular} ${id} cannot go from ${String(from)} to ${String(to)}. ${next}`,
  );
}
/** The field error of a value already taken: the same, whoever noticed it. */
const takenField = (field: string, among: string): FieldError => ({
  field,
  code: "unique_violation",
  message: `${field} must be unique among your company's live ${among}.`,
});
/** `heldBy` names the holder (`project 7`, `item 2 of this batch`); `among` the resource's records (`projects`). */
export const uniqueViolation = (
  field: string,
  value: unknown,
  heldBy: string,
  among: string,
): Refusal =>
  refusal("unique_violation", `${field} "${String(value)}" is already used by ${heldBy}.`, {
    errors: [takenField(field, among)],
  });
/**
 * A change of a custom field's definition that the values stored would break (docs/custom-fields.md):
 * how many records, and up to 10 of their ids.
 */
export const customFieldConflict = (
  key: string,
  rule: string,
  count: number,
  ids: readonly number[],
): Refusal =>
  refusal(
    "custom_field_conflict",
    `${count} record${count === 1 ? "" : "s"} would break ${rule} of custom field ${key}; ` +
      "change or clear their values first.",
    {
      errors: ids.slice(0, 10).map((id) => ({
        field: `custom_fields.${key}`,
        code: "conflicting_value",
        message: `Record ${id} holds a value that breaks ${rule}.`,
      })),
      extensions: { count },
    },
  );
/** A custom field's type never changes: a new field (and a copy of the values) is the way. */
export const customFieldTypeLocked = (key: string, from: string, to: unknown): Refusal =>
  refusal(
    "custom_field_conflict",
    `The type of custom field ${key} is ${from} and cannot change to ${String(to)}: create ` +
      "another field of that type instead.",
  );
/** A unique value the database's index refused, where the server's own check did not see its holder. */
export const uniqueValueTaken = (field: string, among: string): Refusal =>
  refusal(
    "unique_violation",
    `${field} is already used by another live record: another write took the same value at the same moment.`,
    { errors: [takenField(field, among)] },
  );
export const billingModeLocked = (id: number, status: unknown): Refusal =>
  refusal(
    "billing_mode_locked",
    `The billing mode of project ${id} is locked: it can change only while the project is in ` +
      `DRAFT (it is ${String(status)}).`,
  );
export const estimateNotDraft = (
  id: number,
  status: unknown,
  refused: readonly string[],
): Refusal =>
  refusal(
    "estimate_not_draft",
    `Estimate ${id} is ${String(status)}, not DRAFT: only its status may change (refused: ${refused.join(", ")}).`,
  );
export const rentalBilled = (id: number): Refusal =>
  refusal("rental_billed", `Rental ${id} is billed: it is history and cannot change.`);
export const deleteBlocked = (
  singular: string,
  id: number,
  reasons: readonly string[],
  blockers: readonly { resource: string; id: number }[],
): Refusal =>
  refusal(
    "delete_blocked",
    `${singular} ${id} cannot be deleted: ${reasons.join("; ")} ` +
      `(${blockers.map((ref) => `${ref.resource} ${ref.id}`).join(", ")}).`,
    { extensions: { blockers } },
  );
/** A restore of a record that is live: there is nothing to bring back. */
export const notDeleted = (singular: string, id: number): Refusal =>
  refusal(
    "not_deleted",
    `${singular} ${id} is not deleted: only a deleted record can be restored.`,
  );
/** `current`: the record's ETag now, which the answer carries. */
export const preconditionFailed = (header: string, current: string): Refusal =>
  refusal(
    "precondition_failed",
    `The record changed since you read it: If-Match ${header} does not match the current ETag ${current}.`,
    { headers: { etag: current } },
  );
/** A batch update item's `if_match` given as the `updated_at` the caller last saw. */
export const changedSince = (sent: string, updatedAt: string): Refusal =>
  refusal(
    "precondition_failed",
    `The record changed since you read it: if_match ${sent} is not its updated_at, which is now ${updatedAt}.`,
  );
export const nothingToMatch = (what: string, externalId: string): Refusal =>
  refusal(
    "precondition_failed",
    `No live ${what} has external_id "${externalId}", so If-Match cannot match.`,
  );
/** `data`: every item's result, which the answer carries. */
export const batchFailed = (failed: number, total: number, data: unknown): Refusal =>
  refusal(
    "batch_failed",
    `${failed} of ${total} items were refused, so none was written (atomic batch); each item's result says why.`,
    { extensions: { data } },
  );

// Idempotency keys and batch item keys.
export const idempotencyKeyReuse = (): Refusal =>
  refusal(
    "idempotency_key_reuse",
    "This Idempotency-Key was already used for a different request (method, path, dry-run flag " +
      "or body); use a new key for a new request.",
  );
export const itemKeyReuse = (): Refusal =>
  refusal(
    "idempotency_key_reuse",
    "This item key was already used for a different item (resource, on_conflict or body); use a " +
      "new key for a new item.",
  );
// Retry-After 1: the request holding the key had already waited a lock-wait for it to finish.
export const idempotencyInProgress = (): Refusal =>
  refusal(
    "idempotency_in_progress",
    "A request with this Idempotency-Key is still running; retry after it finishes to get its result.",
    { headers: { "retry-after": "1" } },
  );

// The change feed.
export const cursorExpired = (cursor: string): Refusal =>
  refusal(
    "cursor_expired",
    `Events up to ${cursor} are past the 30-day retention; start again without \`after\` (or ` +
      `from a newer event) and resync records with \`updated_since\`.`,
  );

// Failures of ours.
const RETRY_AFTER_SECONDS = "2";
export const databaseUnavailable = (): Refusal =>
  refusal(
    "database_unavailable",
    "The database cannot be reached or did not answer in time; nothing was changed by this " +
      "request. Retry shortly (see Retry-After).",
    { headers: { "retry-after": RETRY_AFTER_SECONDS } },
  );
export const commitOutcomeUnknown = (): Refusal =>
  refusal(
    "commit_outcome_unknown",
    "The database stopped answering while this write was being committed, so whether it was " +
      "committed is not known. Send it again with the same Idempotency-Key: a write that was " +
      "committed is answered as it was the first time, one that was not is made (without a " +
      "key, look for the record first).",
    { headers: { "retry-after": RETRY_AFTER_SECONDS } },
  );
export const internal = (): Refusal =>
  refusal(
    "internal",
    "Something went wrong on our side; the request id identifies it in our logs.",
  );
