// When to retry a failed attempt and how long to wait first: backoff with jitter, or the server's Retry-After.
import { ApiConnectionError, type ErpError } from "./errors.ts";

const INITIAL_DELAY_MS = 500;
const MAX_BACKOFF_MS = 8_000;
/** A Retry-After longer than this is not waited out: the error reaches the caller instead. */
const MAX_RETRY_AFTER_MS = 60_000;

/** Whether another attempt may succeed: no response, 408, 409 `idempotency_in_progress`, 429 or 5xx. */
export function isRetryable(error: ErpError): boolean {
  if (error instanceof ApiConnectionError) return true;
  const status = error.status ?? 0;
  return (
    status === 408 ||
    status === 429 ||
    status >= 500 ||
    (status === 409 && error.code === "idempotency_in_progress")
  );
}

/**
 * Milliseconds to wait before retry number `retry` (0-based), or undefined when the server
 * asks for a longer pause than is worth waiting for.
 */
export function retryDelayMs(
  retry: number,
  headers: Headers,
  random: () => number = Math.random,
): number | undefined {
  const retryAfter = parseRetryAfter(headers.get("retry-after"));
  if (retryAfter !== undefined) return retryAfter <= MAX_RETRY_AFTER_MS ? retryAfter : undefined;
  const backoff = Math.min(INITIAL_DELAY_MS * 2 ** retry, MAX_BACKOFF_MS);
  // Up to a quarter off, so clients that failed together do not retry together.
  return backoff * (1 - random() * 0.25);
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
