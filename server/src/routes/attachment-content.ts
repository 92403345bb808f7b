// An attachment's bytes as an answer: streamed from the store, whole or the one range asked for
// (206), as a download (`Content-Disposition: attachment`, the name in UTF-8), typed as stored but
// never sniffed or run by a browser (`nosniff`, `Content-Security-Policy: sandbox`), tagged by its
// SHA-256 (If-None-Match → 304, If-Range honoured).
import { contentDisposition, parseRange } from "../attachments/content-headers.ts";
import type { AttachmentRow } from "../attachments/rows.ts";
import type { AttachmentStore } from "../attachments/store.ts";
import { etagMatches } from "../http/etag.ts";
import { rangeNotSatisfiable } from "../refusals/catalogue.ts";

export function contentResponse(
  store: AttachmentStore,
  request: Request,
  set: { headers: Record<string, unknown> },
  attachment: AttachmentRow,
): Response {
  const headers = set.headers as Record<string, string>;
  set.headers = {};
  const etag = `"${attachment.sha256}"`;
  Object.assign(headers, {
    etag,
    "content-type": attachment.content_type,
    "content-disposition": contentDisposition(attachment.filename),
    "x-content-type-options": "nosniff",
    "content-security-policy": "sandbox",
    "cache-control": "private, no-cache",
    "accept-ranges": "bytes",
  });
  if (etagMatches(request.headers.get("if-none-match"), etag))
    return new Response(null, { status: 304, headers });
  const ifRange = request.headers.get("if-range");
  const ranged = ifRange === null || ifRange === etag;
  const range = ranged ? parseRange(request.headers.get("range"), attachment.size) : undefined;
  if (range === "unsatisfiable") throw rangeNotSatisfiable(attachment.size);
  if (!range) {
    headers["content-length"] = String(attachment.size);
    const body = attachment.size === 0 ? null : store.read(attachment.object_key);
    return new Response(body, { status: 200, headers });
  }
  headers["content-range"] = `bytes ${range.start}-${range.end}/${attachment.size}`;
  headers["content-length"] = String(range.end - range.start + 1);
  return new Response(store.read(attachment.object_key, range), { status: 206, headers });
}
