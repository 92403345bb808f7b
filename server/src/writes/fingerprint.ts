// What an Idempotency-Key is bound to: method, path, dry-run flag and the body, key order ignored.
import { createHash } from "node:crypto";

/** JSON with every object's keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` read the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/** SHA-256 hex of the request as a key sees it; 64 characters, as the table stores it. */
export function fingerprintOf(method: string, path: string, dryRun: boolean, body: unknown): string {
  return createHash("sha256").update(canonicalJson([method.toUpperCase(), path, dryRun, body ?? null])).digest("hex");
}
