// If-Match on writes: the tag must be the one a GET of the full record returns now.
import { etagMatches, etagOf } from "../http/etag.ts";
import { preconditionFailed } from "../refusals/catalogue.ts";
import type { StoredRecord } from "../resources/definition.ts";

/** The representation a GET of one record sends; its ETag is what If-Match compares to. */
export const recordDocument = (record: StoredRecord): string => JSON.stringify({ data: record });

export function checkIfMatch(header: string | null, stored: StoredRecord): void {
  if (header === null) return;
  const current = etagOf(recordDocument(stored));
  if (!etagMatches(header, current, "strong")) throw preconditionFailed(header, current);
}
