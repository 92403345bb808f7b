// A webhook attempt observed: its latency by result and, when traces are exported, a span of its
// own (a delivery runs outside any request, so it starts a trace).
import { webhookAttemptDuration } from "./metrics.ts";
import { newSpanId, traceOf } from "./trace-context.ts";
import { recordSpan, tracing } from "./tracing.ts";

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
  recordSpan({
    name: "webhook send",
    kind: "client",
    traceId: traceOf(null).traceId,
    spanId: newSpanId(),
    parentSpanId: undefined,
    startMs: attempt.startMs,
    endMs: attempt.endMs,
    error: !attempt.delivered,
    attributes:
      attempt.statusCode === null ? {} : { "http.response.status_code": attempt.statusCode },
  });
}
