// Read responses: exact JSON bytes with a strong ETag, or 304 when the client has them.
import { etagMatches, etagOf, untimedEtagOf } from "./etag.ts";

/**
 * A read narrowed by `fields` answers as this media type: its own schema in the OpenAPI document,
 * so the full record (application/json) stays what generated clients type a plain read as.
 */
export const SPARSE_MEDIA_TYPE = "application/vnd.erp.sparse+json";

/** What a read answers: its request, and the headers already set for the answer (X-Request-Id, RateLimit-*, CORS). */
export interface ReadCall {
  request: Request;
  set: { headers: Record<string, string | number> };
}

/** The weight Accept gives a media type: that of its most specific matching range (RFC 9110), 0 when none matches. */
function acceptWeight(ranges: { type: string; q: number }[], mediaType: string): number {
  const exact = ranges.find((range) => range.type === mediaType);
  const group = ranges.find((range) => range.type === `${mediaType.split("/")[0]}/*`);
  const any = ranges.find((range) => range.type === "*/*");
  return (exact ?? group ?? any)?.q ?? 0;
}

/**
 * Whether a `fields` read answers as the sparse type: a client whose Accept prefers
 * application/json to it (one that names only application/json) gets application/json, `fields`
 * or not; no Accept, or one that weighs both alike (`*\/*`), gets the sparse type.
 */
export function answersSparse(accept: string | null): boolean {
  if (!accept) return true;
  const ranges = accept.split(",").map((range) => {
    const [type = "", ...params] = range.split(";").map((part) => part.trim().toLowerCase());
    const q = params.find((param) => param.startsWith("q="));
    return { type, q: q === undefined ? 1 : Number(q.slice(2)) || 0 };
  });
  return acceptWeight(ranges, SPARSE_MEDIA_TYPE) >= acceptWeight(ranges, "application/json");
}

export function readResponse(
  { request, set }: ReadCall,
  document: unknown,
  options: { sparse?: boolean; untimed?: boolean } = {},
): Response {
  const body = JSON.stringify(document);
  // A token that does not see every field: a change to one it does not see leaves the tag as it was.
  const etag = options.untimed ? untimedEtagOf(document) : etagOf(body);
  // The headers set so far go into the Response itself, as the object they were set in (no copy),
  // and none stay behind: whenever any do, Elysia builds the Response again around its body as a
  // stream (bench/README.md).
  const headers = set.headers;
  set.headers = {};
  headers.etag = etag;
  headers["cache-control"] = "private, no-cache";
  if (etagMatches(request.headers.get("if-none-match"), etag))
    return new Response(null, { status: 304, headers: headers as Record<string, string> });
  headers["content-type"] =
    options.sparse && answersSparse(request.headers.get("accept"))
      ? SPARSE_MEDIA_TYPE
      : "application/json";
  return new Response(body, { headers: headers as Record<string, string> });
}
