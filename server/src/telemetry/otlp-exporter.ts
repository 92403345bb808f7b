// Spans to an OTLP/HTTP collector, in batches, loaded only when traces are exported
// (telemetry/tracing.ts). A span is recorded as plain values into the arrays of the batch being
// filled (span-batch.ts); a full batch (512), or what waits every OTEL_BSP_SCHEDULE_DELAY ms, is
// then written as one `ExportTraceServiceRequest` in the protocol's protobuf encoding (the
// default, otlp-protobuf.ts) or its JSON one (otlp-json.ts) and POSTed.
// OpenTelemetry's SDK and its exporter did the same at several times the cost per span
// (docs/operations.md: a GET lost about a third of its throughput), which tracing every request
// cannot afford.
import { log } from "../base/log.ts";
import { otlpJsonWriter } from "./otlp-json.ts";
import { otlpProtobufWriter } from "./otlp-protobuf.ts";
import { BATCH, newSpanBatch, type SpanBatch, VALUES } from "./span-batch.ts";
import type { RecordSpan } from "./span-types.ts";

/** Spans kept while the collector does not answer; older ones are dropped first. */
const MAX_QUEUE = 8_192;

/** The collector's traces URL from the standard variables (the signal's own one wins). */
export function tracesUrl(env: Record<string, string | undefined>): string {
  const own = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (own) return own;
  return `${(env.OTEL_EXPORTER_OTLP_ENDPOINT ?? "http://localhost:4318").replace(/\/+$/, "")}/v1/traces`;
}

export type OtlpProtocol = "http/protobuf" | "http/json";

/**
 * The standard protocol variables (the signal's own one wins), http/protobuf by default as the
 * specification says; anything else, grpc included, refuses to start the server.
 */
export function otlpProtocol(env: Record<string, string | undefined>): OtlpProtocol {
  for (const name of ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"]) {
    const value = env[name];
    if (!value) continue;
    const protocol = value.trim().toLowerCase();
    if (protocol === "http/protobuf" || protocol === "http/json") return protocol;
    throw new Error(`${name} must be http/protobuf or http/json, not "${value}"`);
  }
  return "http/protobuf";
}

export function startOtlpExporter(env: Record<string, string | undefined>): {
  export: RecordSpan;
  shutdown: () => Promise<void>;
  protocol: OtlpProtocol;
} {
  const protocol = otlpProtocol(env);
  const url = tracesUrl(env);
  const delayMs = Number(env.OTEL_BSP_SCHEDULE_DELAY) || 5_000;
  const serviceName = env.OTEL_SERVICE_NAME || "construction-erp-api";
  type Body = string | Uint8Array<ArrayBuffer>;
  const protobuf = protocol === "http/protobuf" ? otlpProtobufWriter(serviceName) : undefined;
  const write: (batch: SpanBatch) => Body = protobuf?.write ?? otlpJsonWriter(serviceName);
  /** A sent body's buffer back to the writer that lent it (a JSON body is a string). */
  const release = (body: Body): void => {
    if (protobuf && typeof body !== "string") protobuf.release(body);
  };
  const contentType = protocol === "http/json" ? "application/json" : "application/x-protobuf";
  /** Sends a body; true once the collector answered 2xx, which it does after reading all of it. */
  const post = (body: Body): Promise<boolean> =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": contentType },
      body,
      signal: AbortSignal.timeout(10_000),
    }).then(
      (response) => {
        void response.body?.cancel();
        return response.ok;
      },
      (error: unknown) => {
        log.throttled("warn", "otlp", "spans not exported; the collector did not answer", {
          error: error instanceof Error ? error.name : typeof error,
        });
        return false;
      },
    );

  const batch = newSpanBatch();
  const { shapes, names, details, traceIds, spanIds, parents, starts, ends, errors, values } =
    batch;
  const waiting: Body[] = [];
  let sending: Promise<void> | undefined;
  const send = async (): Promise<void> => {
    for (let body = waiting.shift(); body !== undefined; body = waiting.shift())
      if (await post(body)) release(body);
    sending = undefined;
  };
  const flush = (): Promise<void> => {
    if (batch.filled > 0) {
      waiting.push(write(batch));
      batch.filled = 0;
      if (waiting.length > MAX_QUEUE / BATCH) waiting.shift();
    }
    if (!sending && waiting.length > 0) sending = send();
    return sending ?? Promise.resolve();
  };
  const timer = setInterval(() => void flush(), delayMs);
  timer.unref?.();

  return {
    export(shape, name, detail, traceId, spanId, parentSpanId, startMs, endMs, error, a, b, c, d) {
      const at = batch.filled++;
      shapes[at] = shape;
      names[at] = name;
      details[at] = detail;
      traceIds[at] = traceId;
      spanIds[at] = spanId;
      parents[at] = parentSpanId;
      starts[at] = startMs;
      ends[at] = endMs;
      errors[at] = error ? 1 : 0;
      const v = at * VALUES;
      values[v] = a;
      values[v + 1] = b;
      values[v + 2] = c;
      values[v + 3] = d;
      if (batch.filled === BATCH) void flush();
    },
    async shutdown() {
      clearInterval(timer);
      await flush();
    },
    protocol,
  };
}
