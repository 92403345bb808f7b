// What an Idempotency-Key is bound to: method, path, dry-run flag and the body, key order ignored.
import { createHash } from "node:crypto";

/** Members JSON leaves out of an object (and writes as null in an array). */
const omitted = (value: unknown): boolean =>
  value === undefined || typeof value === "function" || typeof value === "symbol";

/**
 * JSON with every object's keys in code-point order, so `{"a":1,"b":2}` and `{"b":2,"a":1}` read
 * the same: JSON.stringify's text with sorted keys. Recursive: bodies are at most 32 levels deep
 * (http/body.ts refuses deeper ones before they are parsed).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value !== "object") return JSON.stringify(value);
  // A batch's items are read twice (the request's fingerprint, then each item's); bodies are never changed.
  let text = written.get(value);
  if (text !== undefined) return text;
  if (Array.isArray(value))
    text = `[${value.map((item) => (omitted(item) ? "null" : canonicalJson(item))).join(",")}]`;
  else {
    const members: string[] = [];
    for (const key of Object.keys(value).sort()) {
      const member = (value as Record<string, unknown>)[key];
      if (!omitted(member)) members.push(`${JSON.stringify(key)}:${canonicalJson(member)}`);
    }
    text = `{${members.join(",")}}`;
  }
  written.set(value, text);
  return text;
}

const written = new WeakMap<object, string>();

/** SHA-256 hex of the request as a key sees it; 64 characters, as the table stores it. */
export function fingerprintOf(
  method: string,
  path: string,
  dryRun: boolean,
  body: unknown,
  hidden: readonly string[] = [],
): string {
  // `hidden`: the fields the caller does not see (docs/tokens.md). A key's stored answer shows the
  // record as its first caller saw it, so it is replayed only to a caller that sees the same.
  const bound = [method.toUpperCase(), path, dryRun, body ?? null];
  return createHash("sha256")
    .update(canonicalJson(hidden.length === 0 ? bound : [...bound, hidden]))
    .digest("hex");
}
