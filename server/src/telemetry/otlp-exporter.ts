// Spans to an OTLP/HTTP collector in the protocol's JSON encoding, in batches, loaded only when
// traces are exported (telemetry/tracing.ts). The server records its spans as plain values where
// they happen; this turns a batch of them into one `ExportTraceServiceRequest` every
// OTEL_BSP_SCHEDULE_DELAY ms (or as soon as 512 wait) and POSTs it. OpenTelemetry's SDK and its
// exporter did the same at several times the cost per span (docs/operations.md: a GET lost about a
// third of its throughput), which tracing every request cannot afford.
import { log } from "../base/log.ts";
import type { SpanRecord } from "./tracing.ts";

/** SpanKind of the OTLP protocol. */
const KINDS = { internal: 1, server: 2, client: 3 } as const;
const BATCH = 512;
/** Spans kept while the collector does not answer; older ones are dropped first. */
const MAX_QUEUE = 8_192;
const STATUS_ERROR = 2;

/** An attribute's OTLP AnyValue as JSON (integers as decimal strings, as the JSON encoding wants). */
const attributeValue = (value: string | number | boolean): string =>
  typeof value === "string"
    ? `{"stringValue":${JSON.stringify(value)}}`
    : typeof value === "boolean"
      ? `{"boolValue":${value}}`
      : `{"intValue":"${Math.trunc(value)}"}`;

/** Epoch milliseconds as nanoseconds: whole microseconds stay exact in a double. */
const nanos = (ms: number): string => `${Math.round(ms * 1000)}000`;

/**
 * One span as OTLP/JSON text, written directly: building each span as objects for JSON.stringify
 * cost more than the rest of its export. Names and string values are escaped; ids are hex.
 */
function encode(span: SpanRecord): string {
  let attributes = "";
  for (const key in span.attributes) {
    if (attributes !== "") attributes += ",";
    attributes += `{"key":"${key}","value":${attributeValue(span.attributes[key]!)}}`;
  }
  return (
    `{"traceId":"${span.traceId}","spanId":"${span.spanId}",` +
    (span.parentSpanId ? `"parentSpanId":"${span.parentSpanId}",` : "") +
    `"name":${JSON.stringify(span.name)},"kind":${KINDS[span.kind]},` +
    `"startTimeUnixNano":"${nanos(span.startMs)}","endTimeUnixNano":"${nanos(span.endMs)}",` +
    `"attributes":[${attributes}]` +
    (span.error ? `,"status":{"code":${STATUS_ERROR}}}` : "}")
  );
}

/** The collector's traces URL from the standard variables (the signal's own one wins). */
export function tracesUrl(env: Record<string, string | undefined>): string {
  const own = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (own) return own;
  return `${(env.OTEL_EXPORTER_OTLP_ENDPOINT ?? "http://localhost:4318").replace(/\/+$/, "")}/v1/traces`;
}

export function startOtlpExporter(env: Record<string, string | undefined>): {
  export: (span: SpanRecord) => void;
  shutdown: () => Promise<void>;
} {
  const url = tracesUrl(env);
  const delayMs = Number(env.OTEL_BSP_SCHEDULE_DELAY) || 5_000;
  const resource = JSON.stringify({
    attributes: [
      {
        key: "service.name",
        value: { stringValue: env.OTEL_SERVICE_NAME || "construction-erp-api" },
      },
    ],
  });
  let queue: SpanRecord[] = [];
  let sending: Promise<void> = Promise.resolve();
  const send = (spans: SpanRecord[]): Promise<void> =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body:
        `{"resourceSpans":[{"resource":${resource},` +
        `"scopeSpans":[{"scope":{"name":"construction-erp-api"},"spans":[${spans.map(encode).join(",")}]}]}]}`,
      signal: AbortSignal.timeout(10_000),
    }).then(
      (response) => void response.body?.cancel(),
      (error: unknown) =>
        log.throttled("warn", "otlp", "spans not exported; the collector did not answer", {
          error: error instanceof Error ? error.name : typeof error,
        }),
    );
  const flush = (): Promise<void> => {
    while (queue.length > 0) {
      const batch = queue.slice(0, BATCH);
      queue = queue.slice(BATCH);
      sending = sending.then(() => send(batch));
    }
    return sending;
  };
  const timer = setInterval(() => void flush(), delayMs);
  timer.unref?.();
  return {
    export(span) {
      queue.push(span);
      if (queue.length > MAX_QUEUE) queue = queue.slice(queue.length - MAX_QUEUE);
      if (queue.length >= BATCH) void flush();
    },
    async shutdown() {
      clearInterval(timer);
      await flush();
    },
  };
}
