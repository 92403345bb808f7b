// The path of a request exactly as sent: `new URL` would resolve `..` and `.` segments, and the
// router matches the unresolved path, so every decision about a route must see the same one.
export function rawPath(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const end = url.indexOf("?", start);
  return end === -1 ? url.slice(start) : url.slice(start, end);
}
