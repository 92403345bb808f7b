// What an Idempotency-Key is bound to: method, path, dry-run flag and the body, key order ignored.
import { createHash } from "node:crypto";

/** Object keys in code-point order, so `{"a":1,"b":2}` and `{"b":2,"a":1}` read the same. */
function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  // No prototype: a `__proto__` key stays an ordinary member instead of replacing the prototype.
  const sorted: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value).sort()) sorted[key] = (value as Record<string, unknown>)[key];
  return sorted;
}

/**
 * JSON with every object's keys sorted, built by the engine's own JSON.stringify, which walks a
 * body nested thousands deep without exhausting the stack.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value ?? null, sortedKeys);
}

/** SHA-256 hex of the request as a key sees it; 64 characters, as the table stores it. */
export function fingerprintOf(method: string, path: string, dryRun: boolean, body: unknown): string {
  return createHash("sha256").update(canonicalJson([method.toUpperCase(), path, dryRun, body ?? null])).digest("hex");
}
