// A batch of spans as OTLP/HTTP's JSON encoding (`http/json`): one `ExportTraceServiceRequest`
// written as pieces pushed into one array and joined once, names and values escaped once each, a
// time's microseconds from a table (docs/operations.md, "Traces").
import { type SpanBatch, VALUES } from "./span-batch.ts";
import type { SpanShape } from "./span-types.ts";

/** SpanKind of the OTLP protocol, as the JSON after a span's name. */
const KINDS = { internal: `,"kind":1`, server: `,"kind":2`, client: `,"kind":3` } as const;

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
const KEYS = Symbol("json keys");
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

/** Writes a batch as the body of one request, for the service `serviceName`. */
export function otlpJsonWriter(serviceName: string): (batch: SpanBatch) => string {
  const resource = JSON.stringify({
    attributes: [{ key: "service.name", value: { stringValue: serviceName } }],
  });
  const opening =
    `{"resourceSpans":[{"resource":${resource},` +
    `"scopeSpans":[{"scope":{"name":"construction-erp-api"},"spans":[`;

  // Times by their second's text, made once a second, and their microseconds from the table.
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
  return (batch) => {
    const { shapes, names, details, traceIds, spanIds, parents, starts, ends, errors, values } =
      batch;
    parts.push(opening);
    for (let i = 0; i < batch.filled; i++) {
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
    return text;
  };
}
