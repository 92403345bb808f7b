// If-Match on writes: the tag must be the one a GET of the full record returns now.
import { etagMatches, etagOf } from "../http/etag.ts";
import { ApiError } from "../http/problem.ts";
import type { StoredRecord } from "../resources/definition.ts";

/** The representation a GET of one record sends; its ETag is what If-Match compares to. */
export const recordDocument = (record: StoredRecord): string => JSON.stringify({ data: record });

export function checkIfMatch(header: string | null, stored: StoredRecord): void {
  if (header === null) return;
  const current = etagOf(recordDocument(stored));
  if (!etagMatches(header, current, "strong")) {
    throw new ApiError(412, "precondition_failed", `The record changed since you read it: If-Match ${header} does not match the current ETag ${current}.`, undefined, { etag: current });
  }
}
