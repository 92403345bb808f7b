// The OpenTelemetry SDK, loaded only when traces are exported (telemetry/tracing.ts): the spans the
// server recorded become SDK spans, batched to the OTLP/HTTP endpoint by the official exporter.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { SpanRecord } from "./tracing.ts";

const KINDS = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL };

export function startOtlpExporter(env: Record<string, string | undefined>): {
  export: (span: SpanRecord) => void;
  shutdown: () => Promise<void>;
} {
  // The ids of a span are the ones the server already handed out (its traceparent answer), so
  // the SDK is given them instead of making its own.
  let next: { traceId: string; spanId: string } | undefined;
  const random = (bytes: number): string =>
    [...crypto.getRandomValues(new Uint8Array(bytes))]
      .map((byte) => byte.toString(16).padStart(2, "0"))
      .join("");
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      "service.name": env.OTEL_SERVICE_NAME || "construction-erp-api",
    }),
    idGenerator: {
      generateTraceId: () => next?.traceId ?? random(16),
      generateSpanId: () => next?.spanId ?? random(8),
    },
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter(), {
        // The standard variable, read here: the SDK leaves reading it to its Node distribution.
        scheduledDelayMillis: Number(env.OTEL_BSP_SCHEDULE_DELAY) || 5_000,
      }),
    ],
  });
  const tracer = provider.getTracer("construction-erp-api");
  return {
    export(record) {
      const parent = record.parentSpanId
        ? trace.setSpanContext(ROOT_CONTEXT, {
            traceId: record.traceId,
            spanId: record.parentSpanId,
            traceFlags: TraceFlags.SAMPLED,
            isRemote: true,
          })
        : ROOT_CONTEXT;
      next = { traceId: record.traceId, spanId: record.spanId };
      const span = tracer.startSpan(
        record.name,
        { kind: KINDS[record.kind], startTime: record.startMs, attributes: record.attributes },
        parent,
      );
      next = undefined;
      if (record.error) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end(record.endMs);
    },
    shutdown: () => provider.shutdown(),
  };
}
