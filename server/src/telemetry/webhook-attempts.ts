// A webhook attempt observed: its latency by result and, when traces are exported, a span of its
// own (a delivery runs outside any request, so it starts a trace).
import { webhookAttemptDuration } from "./metrics.ts";
import { newSpanId, traceOf } from "./trace-context.ts";
import type { SpanShape } from "./span-types.ts";
import { recordSpan, tracing } from "./tracing.ts";

const SEND_SPAN: SpanShape = { kind: "client", keys: ["http.response.status_code"] };

export function observeWebhookAttempt(attempt: {
  startMs: number;
  endMs: number;
  delivered: boolean;
  statusCode: number | null;
}): void {
  webhookAttemptDuration
    .labels(attempt.delivered ? "delivered" : "failed")
    .observe((attempt.endMs - attempt.startMs) / 1000);
  if (!tracing()) return;
  recordSpan(
    SEND_SPAN,
    "webhook send",
    undefined,
    traceOf(null).traceId,
    newSpanId(),
    undefined,
    attempt.startMs,
    attempt.endMs,
    !attempt.delivered,
    attempt.statusCode,
  );
}
