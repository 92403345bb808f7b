// Read responses: exact JSON bytes with a strong ETag, or 304 when the client has them.
import { etagMatches, etagOf } from "./etag.ts";

export function readResponse(request: Request, document: unknown): Response {
  const body = JSON.stringify(document);
  const etag = etagOf(body);
  const headers = { etag, "cache-control": "private, no-cache" };
  if (etagMatches(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers });
  return new Response(body, { headers: { ...headers, "content-type": "application/json" } });
}
