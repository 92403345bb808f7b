// Spans to an OTLP/HTTP collector in the protocol's JSON encoding, in batches, loaded only when
// traces are exported (telemetry/tracing.ts). A span is recorded as plain values into arrays kept
// for the batch being filled; a full batch (512), or what waits every OTEL_BSP_SCHEDULE_DELAY ms,
// is then written as one `ExportTraceServiceRequest` and POSTed.
// OpenTelemetry's SDK and its exporter did the same at several times the cost per span
// (docs/operations.md: a GET lost about a third of its throughput), which tracing every request
// cannot afford.
import { log } from "../base/log.ts";
import type { AttributeValue, RecordSpan, SpanShape } from "./tracing.ts";

/** SpanKind of the OTLP protocol, as the JSON after a span's name. */
const KINDS = { internal: `,"kind":1`, server: `,"kind":2`, client: `,"kind":3` } as const;
const BATCH = 512;
/** Attribute values a span holds (a shape's keys beyond these are left out). */
const VALUES = 4;
/** Spans kept while the collector does not answer; older ones are dropped first. */
const MAX_QUEUE = 8_192;

/** A text as a JSON string: as it is between quotes when nothing in it needs escaping (most do not). */
function quoted(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff))
      return JSON.stringify(text);
  }
  return `"${text}"`;
}

/**
 * Names and string values as JSON between their quotes, each made once: they are a few hundred
 * texts (route templates, methods, statements' first words), escaped or not. Bounded, for a client
 * that sends odd methods.
 */
const escapedTexts = new Map<string, string>();
function escaped(text: string): string {
  let found = escapedTexts.get(text);
  if (found === undefined) {
    if (escapedTexts.size >= 4_096) escapedTexts.clear();
    found = quoted(text).slice(1, -1);
    escapedTexts.set(text, found);
  }
  return found;
}

/** `000` to `999`: a time's microseconds as text without turning a number into text per span. */
const DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, "0"));
/** Small integers as text (statuses, most company ids), made once. */
const INTEGERS = Array.from({ length: 1024 }, (_, n) => String(n));

/** Each shape's attribute keys as the JSON that opens their values. */
const KEYS = Symbol("keys");
type Shaped = SpanShape & { [KEYS]?: string[] };
const keyTexts = (shape: Shaped): string[] =>
  (shape[KEYS] ??= shape.keys.slice(0, VALUES).map((key) => `{"key":${quoted(key)},"value":`));

/** An attribute's OTLP AnyValue as JSON and the attribute's end (integers as decimal strings). */
function valueText(value: string | number | boolean): string {
  if (typeof value === "string") return `{"stringValue":"${escaped(value)}"}}`;
  if (typeof value === "boolean") return value ? `{"boolValue":true}}` : `{"boolValue":false}}`;
  const whole = Math.trunc(value);
  return `{"intValue":"${whole >= 0 && whole < INTEGERS.length ? INTEGERS[whole] : String(whole)}"}}`;
}

/** The collector's traces URL from the standard variables (the signal's own one wins). */
export function tracesUrl(env: Record<string, string | undefined>): string {
  const own = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (own) return own;
  return `${(env.OTEL_EXPORTER_OTLP_ENDPOINT ?? "http://localhost:4318").replace(/\/+$/, "")}/v1/traces`;
}

export function startOtlpExporter(env: Record<string, string | undefined>): {
  export: RecordSpan;
  shutdown: () => Promise<void>;
} {
  const url = tracesUrl(env);
  const delayMs = Number(env.OTEL_BSP_SCHEDULE_DELAY) || 5_000;
  const resource = JSON.stringify({
    attributes: [
      {
        key: "service.name",
        value: { stringValue: env.OTEL_SERVICE_NAME || "construction-erp-api" },
      },
    ],
  });
  const opening =
    `{"resourceSpans":[{"resource":${resource},` +
    `"scopeSpans":[{"scope":{"name":"construction-erp-api"},"spans":[`;
  const post = (body: string): Promise<void> =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      signal: AbortSignal.timeout(10_000),
    }).then(
      (response) => void response.body?.cancel(),
      (error: unknown) =>
        log.throttled("warn", "otlp", "spans not exported; the collector did not answer", {
          error: error instanceof Error ? error.name : typeof error,
        }),
    );

  // The batch being filled, a span per index: no object per span for the collector to trace.
  let filled = 0;
  const shapes: Shaped[] = [];
  const names: string[] = [];
  const details: (string | undefined)[] = [];
  const traceIds: string[] = [];
  const spanIds: string[] = [];
  const parents: (string | undefined)[] = [];
  const starts = new Float64Array(BATCH);
  const ends = new Float64Array(BATCH);
  const errors = new Uint8Array(BATCH);
  const values: AttributeValue[] = [];

  // A batch is written as the pieces of one text joined once; times by their second's text, made
  // once a second, and their microseconds from a table.
  const parts: string[] = [];
  let second = -1;
  let secondText = "";
  const pushNanos = (ms: number): void => {
    const micros = Math.round(ms * 1000);
    const seconds = Math.floor(micros / 1e6);
    const rest = micros - seconds * 1e6;
    if (seconds !== second) {
      second = seconds;
      secondText = String(seconds);
    }
    parts.push(secondText, DIGITS[Math.floor(rest / 1000)]!, DIGITS[rest % 1000]!);
  };
  const write = (): string => {
    parts.push(opening);
    for (let i = 0; i < filled; i++) {
      const shape = shapes[i]!;
      parts.push(
        i === 0 ? `{"traceId":"` : `,{"traceId":"`,
        traceIds[i]!,
        `","spanId":"`,
        spanIds[i]!,
      );
      const parent = parents[i];
      if (parent) parts.push(`","parentSpanId":"`, parent);
      parts.push(`","name":"`, escaped(names[i]!));
      const detail = details[i];
      if (detail !== undefined) parts.push(" ", escaped(detail));
      parts.push(`"`, KINDS[shape.kind], `,"startTimeUnixNano":"`);
      pushNanos(starts[i]!);
      parts.push(`000","endTimeUnixNano":"`);
      pushNanos(ends[i]!);
      parts.push(`000","attributes":[`);
      const keys = keyTexts(shape);
      let first = true;
      for (let k = 0; k < keys.length; k++) {
        const value = values[i * VALUES + k];
        if (value === null || value === undefined) continue;
        parts.push(first ? keys[k]! : `,${keys[k]}`, valueText(value));
        first = false;
      }
      parts.push(errors[i] === 1 ? `],"status":{"code":2}}` : "]}");
    }
    parts.push("]}]}]}");
    const text = parts.join("");
    parts.length = 0;
    filled = 0;
    return text;
  };

  const waiting: string[] = [];
  let sending: Promise<void> | undefined;
  const send = async (): Promise<void> => {
    for (let batch = waiting.shift(); batch !== undefined; batch = waiting.shift())
      await post(batch);
    sending = undefined;
  };
  const flush = (): Promise<void> => {
    if (filled > 0) {
      waiting.push(write());
      if (waiting.length > MAX_QUEUE / BATCH) waiting.shift();
    }
    if (!sending && waiting.length > 0) sending = send();
    return sending ?? Promise.resolve();
  };
  const timer = setInterval(() => void flush(), delayMs);
  timer.unref?.();

  return {
    export(shape, name, detail, traceId, spanId, parentSpanId, startMs, endMs, error, a, b, c, d) {
      const at = filled++;
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
      if (filled === BATCH) void flush();
    },
    async shutdown() {
      clearInterval(timer);
      await flush();
    },
  };
}
