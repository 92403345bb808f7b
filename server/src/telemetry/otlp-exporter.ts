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

/** A text as a JSON string: as it is between quotes when nothing in it needs escaping (most do not). */
function quoted(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff))
      return JSON.stringify(text);
  }
  return `"${text}"`;
}

/** An attribute's OTLP AnyValue as JSON (integers as decimal strings, as the JSON encoding wants). */
const attributeValue = (value: string | number | boolean): string =>
  typeof value === "string"
    ? `{"stringValue":${quoted(value)}}`
    : typeof value === "boolean"
      ? `{"boolValue":${value}}`
      : `{"intValue":"${Math.trunc(value)}"}`;

let second = -1;
let secondText = "";

/**
 * Epoch milliseconds as nanoseconds (whole microseconds stay exact in a double), the text of the
 * second made once for its spans: a 16-digit number as text cost more than the rest of a span.
 */
function nanos(ms: number): string {
  const micros = Math.round(ms * 1000);
  const seconds = Math.floor(micros / 1e6);
  const rest = micros - seconds * 1e6;
  if (seconds !== second) {
    second = seconds;
    secondText = String(seconds);
  }
  return `${secondText}${rest < 100_000 ? String(rest).padStart(6, "0") : rest}000`;
}

/**
 * One span as OTLP/JSON text, written directly: building each span as objects for JSON.stringify
 * cost more than the rest of its export. Names and string values are escaped where they need it;
 * ids are hex and attribute keys our own.
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
    `"name":${quoted(span.name)},"kind":${KINDS[span.kind]},` +
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
  const post = (spans: string): Promise<void> =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body:
        `{"resourceSpans":[{"resource":${resource},` +
        `"scopeSpans":[{"scope":{"name":"construction-erp-api"},"spans":[${spans}]}]}]}`,
      signal: AbortSignal.timeout(10_000),
    }).then(
      (response) => void response.body?.cancel(),
      (error: unknown) =>
        log.throttled("warn", "otlp", "spans not exported; the collector did not answer", {
          error: error instanceof Error ? error.name : typeof error,
        }),
    );
  // Spans are encoded as they are recorded, into the batch being filled; a full batch waits its
  // turn (one request to the collector at a time).
  let filling = "";
  let filled = 0;
  const waiting: string[] = [];
  let sending: Promise<void> | undefined;
  const send = async (): Promise<void> => {
    for (let batch = waiting.shift(); batch !== undefined; batch = waiting.shift())
      await post(batch);
    sending = undefined;
  };
  const flush = (): Promise<void> => {
    if (filled > 0) {
      waiting.push(filling);
      if (waiting.length > MAX_QUEUE / BATCH) waiting.shift();
      filling = "";
      filled = 0;
    }
    if (!sending && waiting.length > 0) sending = send();
    return sending ?? Promise.resolve();
  };
  const timer = setInterval(() => void flush(), delayMs);
  timer.unref?.();
  return {
    export(span) {
      filling = filled === 0 ? encode(span) : `${filling},${encode(span)}`;
      filled += 1;
      if (filled >= BATCH) void flush();
    },
    async shutdown() {
      clearInterval(timer);
      await flush();
    },
  };
}
