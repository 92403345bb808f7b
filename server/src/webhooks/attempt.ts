// One signed POST of a webhook payload to an endpoint's URL, checked where it connects: what every
// delivery attempt and a test ping do, reported as the deliveries log records it.
import { observeWebhookAttempt } from "../telemetry/webhook-attempts.ts";
import { postTo } from "./send.ts";
import { signatureHeader } from "./signature.ts";
import { checkTarget } from "./targets.ts";

/** 2xx within this long is a delivery. */
export const SEND_TIMEOUT_MS = 10_000;

export interface AttemptResult {
  delivered: boolean;
  /** What the endpoint answered; null when it did not answer. */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  attemptedAt: Date;
}

export async function attemptDelivery(
  url: string,
  eventId: string,
  payload: string,
  secrets: readonly string[],
): Promise<AttemptResult> {
  const started = performance.now();
  let statusCode: number | null = null;
  let error: string | null = null;
  const checked = await checkTarget(url);
  if ("refused" in checked) error = `target refused: url ${checked.refused}`;
  else {
    try {
      statusCode = await postTo(
        checked.target,
        {
          "content-type": "application/json",
          "user-agent": "construction-erp-webhooks/1",
          "erp-event-id": eventId,
          "erp-signature": signatureHeader(secrets, payload),
        },
        payload,
        SEND_TIMEOUT_MS,
      );
    } catch (cause) {
      error =
        cause instanceof Error ? `${cause.name}: ${cause.message}`.slice(0, 500) : "request failed";
    }
  }
  const ended = performance.now();
  const delivered = statusCode !== null && statusCode >= 200 && statusCode < 300;
  observeWebhookAttempt({
    startMs: performance.timeOrigin + started,
    endMs: performance.timeOrigin + ended,
    delivered,
    statusCode,
  });
  return {
    delivered,
    statusCode,
    error,
    durationMs: Math.round(ended - started),
    attemptedAt: new Date(),
  };
}
