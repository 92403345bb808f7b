// The problems of rows an import refuses: a reader's own, with the API's checks of the rest of the
// row added, and an atomic batch's refusal spread over its items.
import type { ErpError } from "../core/errors.ts";
import type { BatchResult } from "../core/results.ts";
import type { FieldError } from "../generated/types.ts";
import type { ImportProblem } from "./import-types.ts";

export const refusal = ({ code, detail }: { code: string; detail: string }): ImportProblem => ({
  status: null,
  code,
  detail,
  errors: [],
});

const problems = (count: number): string =>
  count === 1 ? "1 field has a problem" : `${count} fields have problems`;

/**
 * A row the reader refused, with the API's objections to the rest of it (its dry-run result, by
 * `index` among the batch's refused rows): the fields the reader refused are not the API's to
 * judge (left out, they may read as missing), and a full quota is no fault of the row.
 */
export function withServerChecks(
  errors: readonly FieldError[],
  results: BatchResult["results"] | undefined,
  index: number,
): ImportProblem {
  const error = results?.find((result) => result.index === index)?.error;
  const refused = new Set(errors.map((e) => e.field));
  const server =
    !error || error.code === "quota_exceeded"
      ? []
      : (error.errors ?? [{ field: "", code: error.code, message: error.detail }]).filter(
          (e) => !refused.has(e.field) && !refused.has(e.field.replace(/_id$/, "")),
        );
  const all = [...errors, ...server];
  return { status: null, code: "validation_failed", detail: problems(all.length), errors: all };
}

/** An atomic batch's refusal: each item's own result; the items refused for the others' faults say batch_failed. */
export function failedResults(error: ErpError): BatchResult["results"] {
  const results = (error.body as { data?: { results?: BatchResult["results"] } } | undefined)?.data
    ?.results;
  return (results ?? []).map((item) =>
    item.error
      ? item
      : {
          ...item,
          status: 422,
          id: null,
          error: {
            type: "about:blank",
            title: "Unprocessable Entity",
            status: 422,
            code: "batch_failed",
            detail: error.message,
            request_id: error.requestId ?? "",
          },
        },
  );
}
