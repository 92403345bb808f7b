// An OTLP/HTTP protobuf body read as a collector reads it, for the tests only (the exporter's unit
// test, server/src/telemetry/otlp-exporter.test.ts, and e2e through otlp-traces.ts; protobufjs is a
// dependency of the harness, never of the server): decoded by protobufjs from the protocol's own
// .proto files (testing/otlp-proto/), not by a decoder of ours, and given back as the JSON encoding
// says it: ids in hex, 64-bit integers as decimal text, enums as numbers.
import path from "node:path";
import { Root, type Type } from "protobufjs";

/** An `ExportTraceServiceRequest` in the shape of its JSON encoding. */
export interface DecodedTraces {
  resourceSpans?: {
    resource?: Record<string, unknown>;
    scopeSpans?: { scope?: Record<string, unknown>; spans?: Record<string, unknown>[] }[];
  }[];
}

const protos = new Root();
protos.resolvePath = (_origin, target) => path.join(import.meta.dir, "../otlp-proto", target);
protos.loadSync("opentelemetry/proto/collector/trace/v1/trace_service.proto");
/** The message type itself, for a test that encodes with protobufjs too. */
export const EXPORT_REQUEST: Type = protos.lookupType(
  "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest",
);

export function decodeTraceRequest(body: Uint8Array): DecodedTraces {
  const request = EXPORT_REQUEST.toObject(EXPORT_REQUEST.decode(body), {
    longs: String,
    enums: Number,
    bytes: String,
  }) as DecodedTraces;
  for (const resource of request.resourceSpans ?? [])
    for (const scope of resource.scopeSpans ?? [])
      for (const span of scope.spans ?? [])
        for (const id of ["traceId", "spanId", "parentSpanId"])
          if (typeof span[id] === "string")
            span[id] = Buffer.from(span[id] as string, "base64").toString("hex");
  return request;
}
