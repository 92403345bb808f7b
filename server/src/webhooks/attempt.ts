// One signed POST of a webhook payload to an endpoint's URL, checked where it connects: what every
// delivery attempt and a test ping do, reported as the deliveries log records it.
import { observeWebhookAttempt } from "../telemetry/webhook-attempts.ts";
import { postTo, TIMED_OUT } from "./send.ts";
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

/** TLS failures by the code the runtime gives them: the certificate, its name, the handshake. */
const TLS_CODE =
  /^(ERR_TLS_|ERR_SSL_|EPROTO$|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

/**
 * What failed, said without the address the host resolved to or the port it connected on: the
 * attempt's error in the deliveries log and a test ping's answer is read by the company, and
 * must not make the server a scanner of the networks it reaches.
 */
export function failureOf(cause: unknown): string {
  const code = String((cause as { code?: unknown } | undefined)?.code ?? "");
  if (code === TIMED_OUT) return `timed out: no answer within ${SEND_TIMEOUT_MS / 1000} s`;
  if (code === "ECONNREFUSED") return "connection refused: nothing accepts connections there";
  if (code === "ECONNRESET" || code === "EPIPE")
    return "connection reset: the receiver closed it before answering";
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH") return "host unreachable";
  if (TLS_CODE.test(code)) return `TLS failed (${code}): the receiver's certificate or handshake`;
  return /^[A-Z][A-Z0-9_]{1,40}$/.test(code) ? `request failed (${code})` : "request failed";
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
      error = failureOf(cause);
    }
  }
  const ended = performance.now();
  const delivered = statusCode !== null && statusCode >= 200 && statusCode < 300;
  if (statusCode !== null && !delivered)
    error =
      statusCode >= 300 && statusCode < 400
        ? `answered ${statusCode}, a redirect (not followed): a delivery needs a 2xx`
        : `answered ${statusCode}: a delivery needs a 2xx`;
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
