// Requests Elysia can route. Elysia looks for the path from index 11 of the URL on ("http://"
// plus a host of four characters), so a short Host ("erp", a service name on port 80) would be
// routed on the wrong path; Bun gives an HTTP/1.0 request without Host a relative URL. Both get
// an absolute URL on a placeholder host; the Host header itself is kept as sent.
const PLACEHOLDER_ORIGIN = "http://localhost";

export function routableRequest(request: Request): Request {
  const url = request.url;
  const authority = url.indexOf("//");
  const pathStart = authority === -1 ? 0 : url.indexOf("/", authority + 2);
  if (authority !== -1 && (pathStart === -1 || pathStart >= 11)) return request;
  const path = pathStart === -1 ? "/" : url.slice(pathStart);
  return new Request(`${PLACEHOLDER_ORIGIN}${path}`, request);
}
