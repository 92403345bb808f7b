// A refusal: why a request cannot be done, named by a code of the catalogue (catalogue.ts). Every
// layer throws refusals; the HTTP layer answers them as RFC 9457 problems (http/problem.ts).
import type { FieldError, Problem } from "./problem-schema.ts";

/** One failing field of a body (422), or the field of a unique value already taken (409). */
export type { FieldError } from "./problem-schema.ts";

/** What a catalogue entry fixes for each refusal of its code. */
export interface RefusalKind {
  code: string;
  status: number;
  title: string;
}

/** What a refusal may carry besides its sentence. */
export interface RefusalParts {
  errors?: FieldError[];
  /** Response headers the refusal's answer carries (Retry-After, ETag, Allow, …). */
  headers?: Record<string, string>;
  /** Members added to the problem body (`blockers`, `quota`, a refused batch's `data`). */
  extensions?: Record<string, unknown>;
}

/** Made only by the constructors of catalogue.ts. */
export class Refusal extends Error {
  readonly code: string;
  readonly status: number;
  readonly title: string;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;
  readonly extensions: Record<string, unknown>;

  constructor(
    kind: RefusalKind,
    readonly detail: string,
    parts: RefusalParts = {},
  ) {
    super(detail);
    this.name = "Refusal";
    this.code = kind.code;
    this.status = kind.status;
    this.title = kind.title;
    this.errors = parts.errors;
    this.headers = parts.headers ?? {};
    this.extensions = parts.extensions ?? {};
  }

  /** The body of its answer, and of a refused batch item. */
  body(requestId: string): Problem {
    return {
      type: "about:blank",
      title: this.title,
      status: this.status,
      detail: this.detail,
      code: this.code,
      request_id: requestId,
      ...this.extensions,
      ...(this.errors ? { errors: this.errors } : {}),
    };
  }
}
