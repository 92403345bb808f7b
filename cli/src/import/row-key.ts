// The idempotency key of one imported row, the same on every run of the same file.
import { createHash } from "node:crypto";

/**
 * sha256 of the resource, the row number and the row's body (keys sorted), plus the dry-run flag.
 *
 * - Stable across runs, machines and file paths (stdin has no path), so re-running an interrupted
 *   or partly failed import replays what already went through instead of creating it again.
 * - The row number keeps two identical rows two records; so keep the rows in order between runs
 *   (appending is fine, inserting rows before others gives those others new keys).
 * - A row that was edited gets a new key, so fixing a rejected row and re-running sends it afresh.
 * - Dry runs get their own keys: the server fingerprints the dry-run flag, and a dry run must not
 *   make the real run's key look reused.
 * The server keeps outcomes for 24 h; a rejected row that is not edited is rejected again within that time.
 */
export function rowIdempotencyKey(resource: string, row: number, body: Record<string, unknown>, dryRun: boolean): string {
  const material = JSON.stringify([resource, row, canonical(body), dryRun]);
  return `erp-import-${createHash("sha256").update(material).digest("hex")}`;
}

/** The value with object keys sorted at every depth, so `{a, b}` and `{b, a}` hash alike (as the server compares them). */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical((value as Record<string, unknown>)[key])]));
}
