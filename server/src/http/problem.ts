// RFC 9457 problem details: the one error shape every refusal of this API takes.
export interface FieldError {
  field: string;
  code: string;
  message: string;
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  request_id: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  410: "Gone",
  412: "Precondition Failed",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** Thrown anywhere in a request; the error handler turns it into a problem response. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers: Record<string, string> = {},
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(detail);
    this.name = "ApiError";
  }

  body(requestId: string): ProblemBody {
    return {
      type: "about:blank",
      title: TITLES[this.status] ?? "Error",
      status: this.status,
      detail: this.detail,
      code: this.code,
      request_id: requestId,
      ...this.extensions,
      ...(this.errors ? { errors: this.errors } : {}),
    };
  }
}

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

export function problemResponse(error: ApiError, requestId: string, extraHeaders: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(error.body(requestId)), {
    status: error.status,
    headers: { "content-type": PROBLEM_CONTENT_TYPE, ...extraHeaders, ...error.headers },
  });
}

export const notFound = (what: string, id: number | string): ApiError =>
  new ApiError(404, "not_found", `No ${what} with id ${id}.`);

export const validationFailed = (errors: FieldError[]): ApiError =>
  new ApiError(422, "validation_failed", `The request body has ${errors.length} invalid field${errors.length === 1 ? "" : "s"}.`, errors);

export const invalidQuery = (detail: string): ApiError => new ApiError(400, "invalid_query", detail);
