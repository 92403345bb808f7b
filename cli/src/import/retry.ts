// Retrying one row against a deadline: network errors, 429, 5xx and 409 idempotency_in_progress, for up to 60 s.
import { ApiConnectionError, ApiUserAbortError, ErpError } from "../../../sdk/mod.ts";

export const ROW_DEADLINE_MS = 60_000;
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;

/** Whether waiting could help: the request may not have run, or the server asked to come back. */
export function isTransient(error: unknown): boolean {
  if (error instanceof ApiUserAbortError) return false;
  if (error instanceof ApiConnectionError) return true;
  if (!(error instanceof ErpError)) return false;
  const status = error.status ?? 0;
  return status === 408 || status === 429 || status >= 500 || (status === 409 && error.code === "idempotency_in_progress");
}

/**
 * Runs `attempt` until it succeeds, fails for good, or the next wait would pass the deadline; then the
 * last error is thrown. Waits follow the server's Retry-After, else double from 0.5 s to 8 s with jitter.
 */
export async function withDeadline<T>(attempt: () => Promise<T>, deadlineMs = ROW_DEADLINE_MS): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (let retry = 0;; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isTransient(error)) throw error;
      const wait = retryAfterMs((error as ErpError).headers) ?? backoffMs(retry);
      if (Date.now() + wait > deadline) throw error;
      await Bun.sleep(wait);
    }
  }
}

function backoffMs(retry: number): number {
  // Up to a quarter off, so rows that failed together do not all come back together.
  return Math.min(FIRST_BACKOFF_MS * 2 ** retry, MAX_BACKOFF_MS) * (1 - Math.random() * 0.25);
}

/** Retry-After as delta-seconds or an HTTP date. */
function retryAfterMs(headers: Headers): number | undefined {
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
