// W3C Trace Context: the `traceparent` a request brought is continued (same trace, its span as our
// parent), else a new trace starts; every answer carries ours, so a caller can find its request in
// the traces and the logs by the trace id.
export interface TraceContext {
  readonly traceId: string;
  /** The span of this request: the parent of the spans of its statements. */
  readonly spanId: string;
  /** The caller's span, when it sent a `traceparent`. */
  readonly parentSpanId: string | undefined;
  /** `01` when the trace is sampled (its spans are recorded), else `00`. */
  readonly flags: string;
}

/**
 * The share of new traces that are sampled, from the standard OTEL_TRACES_SAMPLER(_ARG): all by
 * default; a caller's own decision (its `traceparent` flags) is followed either way.
 */
function samplingRatio(env: Record<string, string | undefined>): number {
  const sampler = (env.OTEL_TRACES_SAMPLER ?? "parentbased_always_on").toLowerCase();
  if (sampler.endsWith("always_off")) return 0;
  if (!sampler.endsWith("traceidratio")) return 1;
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? 1);
  return Number.isFinite(ratio) ? Math.min(1, Math.max(0, ratio)) : 1;
}

const RATIO = samplingRatio(process.env);

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const INVALID_TRACE = "0".repeat(32);
const INVALID_SPAN = "0".repeat(16);

/**
 * Random bytes drawn from the system in blocks: a request takes 24 (its trace and span ids), and
 * a call to the system and a hex string built byte by byte per request cost more than the rest
 * of its trace context.
 */
const random = Buffer.alloc(4096);
let drawn = random.length;

function hex(bytes: number): string {
  for (;;) {
    if (drawn + bytes > random.length) {
      crypto.getRandomValues(random);
      drawn = 0;
    }
    const text = random.toString("hex", drawn, drawn + bytes);
    drawn += bytes;
    // All zeros is the invalid id (W3C Trace Context), never one of ours.
    if (text !== INVALID_TRACE && text !== INVALID_SPAN) return text;
  }
}

export const newSpanId = (): string => hex(8);

/** The trace a request belongs to: its valid `traceparent` continued, anything else replaced. */
export function traceOf(traceparent: string | null): TraceContext {
  const match = traceparent === null ? null : TRACEPARENT.exec(traceparent.trim().toLowerCase());
  if (match && match[1] !== INVALID_TRACE && match[2] !== INVALID_SPAN)
    return { traceId: match[1]!, spanId: newSpanId(), parentSpanId: match[2], flags: match[3]! };
  const flags = RATIO === 1 || Math.random() < RATIO ? "01" : "00";
  return { traceId: hex(16), spanId: newSpanId(), parentSpanId: undefined, flags };
}

export const traceparentOf = (trace: TraceContext): string =>
  `00-${trace.traceId}-${trace.spanId}-${trace.flags}`;

/** Whether the spans of this trace are recorded (its sampled flag). */
export const sampled = (trace: TraceContext): boolean =>
  (Number.parseInt(trace.flags[1]!, 16) & 1) === 1;
