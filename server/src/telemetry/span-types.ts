// The shape of a recorded span, shared by what records spans (tracing.ts and its callers) and the
// exporter that is loaded only when traces are exported (otlp-exporter.ts): a leaf, so the exporter's
// files never import the module that loads them.

/**
 * What every span of one kind shares: its SpanKind and its attributes' keys, in the order their
 * values are given to recordSpan. Made once per kind, so a span is recorded as plain values, with
 * no object of its own (docs/operations.md: what a span costs).
 */
export interface SpanShape {
  readonly kind: "server" | "client" | "internal";
  readonly keys: readonly string[];
}

/** An attribute's value; null or undefined leaves the attribute out. */
export type AttributeValue = string | number | boolean | null | undefined;

export type RecordSpan = (
  shape: SpanShape,
  /** The span's name is `name`, or `name detail` when a detail is given: neither is joined per span. */
  name: string,
  detail: string | undefined,
  traceId: string,
  spanId: string,
  parentSpanId: string | undefined,
  /** Epoch milliseconds (fractional). */
  startMs: number,
  endMs: number,
  error: boolean,
  /** The values of the shape's keys, in order (up to four). */
  a?: AttributeValue,
  b?: AttributeValue,
  c?: AttributeValue,
  d?: AttributeValue,
) => void;
