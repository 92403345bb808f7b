// OTLP/HTTP trace requests as a collector reads them: a protobuf body decoded by protobufjs from
// the protocol's own .proto files (otlp-decode.ts), a JSON body parsed.
// Either way the spans come out as the JSON encoding has them: ids in hex, 64-bit integers as text.
import { decodeTraceRequest } from "./otlp-decode.ts";

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

/** The spans of one request's body, by its Content-Type. */
export function spansOf(contentType: string | null, body: Uint8Array): ReceivedSpan[] {
  const request: any =
    contentType === "application/x-protobuf"
      ? decodeTraceRequest(body)
      : JSON.parse(new TextDecoder().decode(body));
  return (request.resourceSpans ?? []).flatMap((resource: any) =>
    (resource.scopeSpans ?? []).flatMap((scope: any) => scope.spans ?? []),
  );
}
