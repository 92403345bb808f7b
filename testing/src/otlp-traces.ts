// OTLP/HTTP trace requests as a collector reads them: a protobuf body decoded by protobufjs from
// the protocol's own .proto files (copies in server/src/telemetry/otlp-proto), a JSON body parsed.
// Either way the spans come out as the JSON encoding has them: ids in hex, 64-bit integers as text.
import path from "node:path";
import { Root } from "protobufjs";
import { ROOT } from "./server.ts";

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: { key: string; value: Record<string, unknown> }[];
  status?: { code: number };
}

const protos = new Root();
protos.resolvePath = (_origin, target) =>
  path.join(ROOT, "server/src/telemetry/otlp-proto", target);
protos.loadSync("opentelemetry/proto/collector/trace/v1/trace_service.proto");
const EXPORT_REQUEST = protos.lookupType(
  "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest",
);

/** The spans of one request's body, by its Content-Type. */
export function spansOf(contentType: string | null, body: Uint8Array): ReceivedSpan[] {
  const request: any =
    contentType === "application/x-protobuf"
      ? EXPORT_REQUEST.toObject(EXPORT_REQUEST.decode(body), {
          longs: String,
          enums: Number,
          bytes: String,
        })
      : JSON.parse(new TextDecoder().decode(body));
  const spans: any[] = (request.resourceSpans ?? []).flatMap((resource: any) =>
    (resource.scopeSpans ?? []).flatMap((scope: any) => scope.spans ?? []),
  );
  if (contentType === "application/x-protobuf")
    for (const span of spans)
      for (const id of ["traceId", "spanId", "parentSpanId"])
        if (span[id] !== undefined) span[id] = Buffer.from(span[id], "base64").toString("hex");
  return spans;
}
