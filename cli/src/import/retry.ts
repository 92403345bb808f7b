// Retrying one request against a deadline: network errors, 5xx and 409 idempotency_in_progress for up
// to 60 s; a 429 is waited out however long the server says (the rate limit is not a failure).
import { ApiUserAbortError, ErpError, isRetryable, retryDelayMs } from "../../../sdk/mod.ts";

export const ROW_DEADLINE_MS = 60_000;

/** Whether waiting could help: the request may not have run, or the server asked to come back. */
export function isTransient(error: unknown): boolean {
  return error instanceof ErpError && !(error instanceof ApiUserAbortError) && isRetryable(error);
}

/**
 * Runs `attempt` until it succeeds, fails for good, or the next wait would pass the deadline; then the
 * last error is thrown. Waits follow the server's Retry-After, else the SDK's backoff with jitter.
 */
export async function withDeadline<T>(attempt: () => Promise<T>, deadlineMs = ROW_DEADLINE_MS): Promise<T> {
  let deadline = Date.now() + deadlineMs;
  for (let retry = 0;; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isTransient(error)) throw error;
      const wait = retryDelayMs(retry, (error as ErpError).headers);
      if (wait === undefined) throw error;
      if ((error as ErpError).status === 429) {
        await Bun.sleep(wait);
        deadline = Math.max(deadline, Date.now() + deadlineMs / 2);
        continue;
      }
      if (Date.now() + wait > deadline) throw error;
      await Bun.sleep(wait);
    }
  }
}
