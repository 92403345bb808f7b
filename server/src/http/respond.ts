// Read responses: exact JSON bytes with a strong ETag, or 304 when the client has them.
import { etagMatches, etagOf } from "./etag.ts";

/**
 * A read narrowed by `fields` answers as this media type: its own schema in the OpenAPI document,
 * so the full record (application/json) stays what generated clients type a plain read as.
 */
export const SPARSE_MEDIA_TYPE = "application/vnd.erp.sparse+json";

export function readResponse(request: Request, document: unknown, options: { sparse?: boolean } = {}): Response {
  const body = JSON.stringify(document);
  const etag = etagOf(body);
  const headers = { etag, "cache-control": "private, no-cache" };
  if (etagMatches(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers });
  return new Response(body, { headers: { ...headers, "content-type": options.sparse ? SPARSE_MEDIA_TYPE : "application/json" } });
}
