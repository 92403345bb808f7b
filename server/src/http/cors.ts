// CORS for browser apps on other origins: tokens travel in a header, never in cookies, so any
// origin may call; the headers the SDK reads (ETag, Retry-After, …) are exposed to scripts, and an
// attachment's upload (Content-Digest) and ranged download (Range, If-Range, Content-Range) work
// from a page as they do from a server (docs/attachments.md).
import { Elysia } from "elysia";

const ALLOWED_HEADERS = [
  "Authorization",
  "Content-Type",
  "Idempotency-Key",
  "X-Dry-Run",
  "If-Match",
  "If-None-Match",
  "X-Request-Id",
  "traceparent",
  "Content-Digest",
  "Range",
  "If-Range",
];
const EXPOSED_HEADERS = [
  "ETag",
  "Location",
  "X-Request-Id",
  "traceparent",
  "Idempotent-Replayed",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
  "Retry-After",
  "WWW-Authenticate",
  "Allow",
  "Content-Disposition",
  "Content-Range",
  "Accept-Ranges",
];
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

export const cors = new Elysia({ name: "cors" }).onRequest(({ request, set }) => {
  if (!request.headers.has("origin")) return;
  set.headers["access-control-allow-origin"] = "*";
  set.headers["access-control-expose-headers"] = EXPOSED_HEADERS.join(", ");
  if (request.method === "OPTIONS" && request.headers.has("access-control-request-method")) {
    return new Response(null, {
      status: 204,
      headers: {
        "access-control-allow-origin": "*",
        "access-control-allow-methods": METHODS.join(", "),
        "access-control-allow-headers": ALLOWED_HEADERS.join(", "),
        "access-control-max-age": "86400",
      },
    });
  }
});
