// The batch of spans being filled: a span per index across plain arrays, no object per span for
// the collector to trace. The exporter records into it (otlp-exporter.ts) and an encoder writes it
// whole when it is sent (otlp-json.ts, otlp-protobuf.ts).
import type { AttributeValue, SpanShape } from "./span-types.ts";

/** Spans a batch holds: a full one is sent at once. */
export const BATCH = 512;
/** Attribute values a span holds (a shape's keys beyond these are left out). */
export const VALUES = 4;

export interface SpanBatch {
  /** How many spans it holds: indexes 0 to filled - 1. */
  filled: number;
  readonly shapes: SpanShape[];
  readonly names: string[];
  /** The span's name is `name detail` when a detail is given. */
  readonly details: (string | undefined)[];
  /** Lower-case hex, as in `traceparent`. */
  readonly traceIds: string[];
  readonly spanIds: string[];
  readonly parents: (string | undefined)[];
  /** Epoch milliseconds (fractional). */
  readonly starts: Float64Array;
  readonly ends: Float64Array;
  /** 1 when the span failed (its status is ERROR). */
  readonly errors: Uint8Array;
  /** VALUES per span, in its shape's key order; null or undefined leaves the attribute out. */
  readonly values: AttributeValue[];
}

export const newSpanBatch = (): SpanBatch => ({
  filled: 0,
  shapes: [],
  names: [],
  details: [],
  traceIds: [],
  spanIds: [],
  parents: [],
  starts: new Float64Array(BATCH),
  ends: new Float64Array(BATCH),
  errors: new Uint8Array(BATCH),
  values: [],
});
