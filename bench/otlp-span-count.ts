// The spans in an OTLP/HTTP trace request, counted for the observability leg's receiver without
// decoding them: the receiver shares the machine with the servers measured, and a collector's own
// work is not what the server's telemetry costs. A protobuf body is walked only down to its
// spans (ExportTraceServiceRequest.resource_spans → ResourceSpans.scope_spans → ScopeSpans.spans,
// fields 1, 2 and 2), each span counted by its tag and skipped by its length; a JSON body's spans
// are counted by the `"spanId":` each starts with (a parent's is `"parentSpanId":`).

const SPAN = '"spanId":';

/** Where the varint read() last read ends. */
let next = 0;
function read(bytes: Uint8Array, at: number): number {
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    const byte = bytes[at++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) break;
  }
  next = at;
  return value;
}

/** Calls `each` with the bounds of every length-delimited field `field` between `from` and `to`. */
function eachField(
  bytes: Uint8Array,
  from: number,
  to: number,
  field: number,
  each: (start: number, end: number) => void,
): void {
  for (let at = from; at < to; ) {
    const key = read(bytes, at);
    at = next;
    const wire = key & 7;
    if (wire === 0) {
      read(bytes, at);
      at = next;
    } else if (wire === 1) {
      at += 8;
    } else if (wire === 5) {
      at += 4;
    } else if (wire === 2) {
      const length = read(bytes, at);
      if (Math.floor(key / 8) === field) each(next, next + length);
      at = next + length;
    } else {
      throw new Error(`not an OTLP protobuf message: wire type ${wire}`);
    }
  }
}

export function countSpans(contentType: string | null, body: Uint8Array): number {
  let spans = 0;
  if (contentType === "application/x-protobuf") {
    eachField(body, 0, body.length, 1, (resourceFrom, resourceTo) =>
      eachField(body, resourceFrom, resourceTo, 2, (scopeFrom, scopeTo) =>
        eachField(body, scopeFrom, scopeTo, 2, () => {
          spans += 1;
        }),
      ),
    );
    return spans;
  }
  const text = Buffer.from(body.buffer, body.byteOffset, body.length);
  for (let at = text.indexOf(SPAN); at !== -1; at = text.indexOf(SPAN, at + 1)) spans += 1;
  return spans;
}
