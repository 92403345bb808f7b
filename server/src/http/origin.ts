// The origin a client reached us by: behind a proxy, what X-Forwarded-Proto and X-Forwarded-Host
// say (their first entry), else the request's own URL. Used where the API names itself (the
// OpenAPI `servers`, the collection's `baseUrl`).
const HOST = /^[A-Za-z0-9.-]+(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$/;

export function publicOrigin(request: Request): string {
  const own = new URL(request.url);
  const proto = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  const host = request.headers.get("x-forwarded-host")?.split(",")[0]?.trim();
  const scheme = proto === "http" || proto === "https" ? proto : own.protocol.slice(0, -1);
  // A header that is not a host name is ignored rather than echoed into documents.
  return `${scheme}://${host && HOST.test(host) ? host : own.host}`;
}
