// OpenTelemetry traces, exported over OTLP/HTTP only when OTEL_EXPORTER_OTLP_ENDPOINT is set:
// then the exporter is loaded (a protocol it does not speak refuses to start the server) and a
// span per request, with a child span per database statement and per webhook send, goes to the
// collector in batches. Unset, nothing is loaded, started or sent,
// and a request costs only its trace ids (docs/operations.md).
import { log } from "../base/log.ts";
import type { RecordSpan } from "./span-types.ts";

let exporter: RecordSpan | undefined;

/** Whether spans are being recorded (an OTLP endpoint is configured and its exporter started). */
export const tracing = (): boolean => exporter !== undefined;

export const recordSpan: RecordSpan = (
  shape,
  name,
  detail,
  traceId,
  spanId,
  parent,
  start,
  end,
  error,
  a,
  b,
  c,
  d,
) => exporter?.(shape, name, detail, traceId, spanId, parent, start, end, error, a, b, c, d);

/** Starts the OTLP exporter when the environment names an endpoint; returns its shutdown. */
export async function startTracing(
  env: Record<string, string | undefined> = process.env,
): Promise<(() => Promise<void>) | undefined> {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return undefined;
  const { startOtlpExporter } = await import("./otlp-exporter.ts");
  const started = startOtlpExporter(env);
  exporter = started.export;
  log.info("traces exported over OTLP", { endpoint, protocol: started.protocol });
  return async () => {
    exporter = undefined;
    await started.shutdown();
  };
}
