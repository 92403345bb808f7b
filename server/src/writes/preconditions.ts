// If-Match on writes: the tag must be the one a GET of the record sends the writing token now.
import { etagMatches, etagOf } from "../http/etag.ts";
import { preconditionFailed } from "../refusals/catalogue.ts";
import type { StoredRecord } from "../resources/definition.ts";
import type { Shown } from "../resources/shown.ts";

/** The representation a GET of one record sends; its ETag is what If-Match compares to. */
export const recordDocument = (record: StoredRecord): string => JSON.stringify({ data: record });

/** If-Match against the tag a GET sends now: the one the writing token's GET sends (`shown`), when known. */
export function checkIfMatch(header: string | null, stored: StoredRecord, shown?: Shown): void {
  if (header === null) return;
  const current = shown ? shown.etag(stored) : etagOf(recordDocument(stored));
  if (!etagMatches(header, current, "strong")) throw preconditionFailed(header, current);
}
