// A batch of spans as OTLP/HTTP's protobuf encoding (`http/protobuf`, the default): one
// `ExportTraceServiceRequest` written by hand into one buffer, with the field numbers of
// opentelemetry-proto's collector/trace/v1, trace/v1, resource/v1 and common/v1 (the tests decode it
// with protobufjs from copies of those files, testing/otlp-proto/). About half the bytes of the JSON: ids as
// raw bytes, times as fixed64, no key names (docs/operations.md, "Traces").
import { type SpanBatch, VALUES } from "./span-batch.ts";
import type { SpanShape } from "./span-types.ts";

/** A field's tag: its number and wire type (0 varint, 1 fixed64, 2 length-delimited). */
const tag = (field: number, wire: 0 | 1 | 2): number => (field << 3) | wire;

// ExportTraceServiceRequest, ResourceSpans, Resource, ScopeSpans, InstrumentationScope.
const REQUEST_RESOURCE_SPANS = tag(1, 2);
const RESOURCE_SPANS_RESOURCE = tag(1, 2);
const RESOURCE_SPANS_SCOPE_SPANS = tag(2, 2);
const RESOURCE_ATTRIBUTES = tag(1, 2);
const SCOPE_SPANS_SCOPE = tag(1, 2);
const SCOPE_SPANS_SPANS = tag(2, 2);
const SCOPE_NAME = tag(1, 2);
// Span and its Status.
const TRACE_ID = tag(1, 2);
const SPAN_ID = tag(2, 2);
const PARENT_SPAN_ID = tag(4, 2);
const NAME = tag(5, 2);
const KIND = tag(6, 0);
const START_TIME = tag(7, 1);
const END_TIME = tag(8, 1);
const ATTRIBUTES = tag(9, 2);
const STATUS = tag(15, 2);
const STATUS_CODE = tag(3, 0);
const STATUS_ERROR = 2;
// KeyValue and AnyValue.
const KEY = tag(1, 2);
const VALUE = tag(2, 2);
const STRING_VALUE = tag(1, 2);
const BOOL_VALUE = tag(2, 0);
const INT_VALUE = tag(3, 0);

/** Span.SpanKind. */
const KINDS = { internal: 1, server: 2, client: 3 } as const;
/** The bytes of a span that do not depend on its texts: its ids, kind and times. */
const FIXED = 1 + 1 + 16 + (1 + 1 + 8) + 2 + 9 + 9;
const PARENT = 1 + 1 + 8;
const ERROR = 4;

/** The value of each hex digit, by its character code. */
const HEX = new Uint8Array(256);
for (let n = 0; n < 16; n++) {
  HEX["0123456789abcdef".charCodeAt(n)] = n;
  HEX["0123456789ABCDEF".charCodeAt(n)] = n;
}

const varintSize = (value: number): number =>
  value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5;

/** Writes a length or another varint below 2^32; returns where the next byte goes. */
function varint(out: Uint8Array, at: number, value: number): number {
  while (value > 0x7f) {
    out[at++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  out[at++] = value;
  return at;
}

/** An int64 as its high and low 32 bits (two's complement), set by split(). */
let high = 0;
let low = 0;
function split(whole: number): void {
  high = Math.floor(whole / 0x1_0000_0000);
  low = (whole - high * 0x1_0000_0000) >>> 0;
  high >>>= 0;
}

/** The varint of the int64 split() last made: 1 to 10 bytes. */
function int64Size(): number {
  if (high === 0) return varintSize(low);
  let size = 5;
  for (let rest = high >>> 3; rest > 0; rest >>>= 7) size++;
  return size;
}

function int64(out: Uint8Array, at: number): number {
  let hi = high;
  let lo = low;
  while (hi !== 0) {
    out[at++] = (lo & 0x7f) | 0x80;
    lo = ((lo >>> 7) | (hi << 25)) >>> 0;
    hi >>>= 7;
  }
  return varint(out, at, lo);
}

function uint32LE(out: Uint8Array, at: number, value: number): void {
  out[at] = value;
  out[at + 1] = value >>> 8;
  out[at + 2] = value >>> 16;
  out[at + 3] = value >>> 24;
}

/**
 * Epoch milliseconds as fixed64 nanoseconds, rounded to the microsecond as the JSON writes them:
 * the nanoseconds pass 2^53, so they are made from the microseconds' 32-bit halves.
 */
function nanos(out: Uint8Array, at: number, ms: number): number {
  const micros = Math.round(ms * 1000);
  const microsHigh = Math.floor(micros / 0x1_0000_0000);
  const lowNanos = (micros - microsHigh * 0x1_0000_0000) * 1000;
  const carry = Math.floor(lowNanos / 0x1_0000_0000);
  uint32LE(out, at, lowNanos - carry * 0x1_0000_0000);
  uint32LE(out, at + 4, microsHigh * 1000 + carry);
  return at + 8;
}

/** A hex id as its bytes, with its tag and length. */
function id(out: Uint8Array, at: number, field: number, hex: string): number {
  out[at++] = field;
  out[at++] = hex.length >>> 1;
  for (let i = 0; i < hex.length; i += 2)
    out[at++] = (HEX[hex.charCodeAt(i)]! << 4) | HEX[hex.charCodeAt(i + 1)]!;
  return at;
}

function bytes(out: Uint8Array, at: number, from: Uint8Array): number {
  for (let i = 0; i < from.length; i++) out[at++] = from[i]!;
  return at;
}

const encoder = new TextEncoder();
/** Names and string values as UTF-8, each made once (a few hundred texts; bounded as in the JSON). */
const utf8Texts = new Map<string, Uint8Array>();
function utf8(text: string): Uint8Array {
  let found = utf8Texts.get(text);
  if (found === undefined) {
    if (utf8Texts.size >= 4_096) utf8Texts.clear();
    found = encoder.encode(text);
    utf8Texts.set(text, found);
  }
  return found;
}

/** A message's bytes from its fields' (for the parts written once per exporter). */
function message(field: number, ...parts: Uint8Array[]): Uint8Array {
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  const out = new Uint8Array(1 + varintSize(length) + length);
  let at = varint(out, 1, length);
  out[0] = field;
  for (const part of parts) at = bytes(out, at, part);
  return out;
}

/** Each shape's attribute keys as the KeyValue's key field. */
const KEYS = Symbol("protobuf keys");
type Shaped = SpanShape & { [KEYS]?: Uint8Array[] };
const keyFields = (shape: Shaped): Uint8Array[] =>
  (shape[KEYS] ??= shape.keys.slice(0, VALUES).map((key) => message(KEY, utf8(key))));

/**
 * Bodies' buffers kept for the next batches. A body is a view of the buffer it was written into,
 * written again only once the collector took the body, rather than a copy per request: memory freed
 * and taken again costs page faults (bench/README.md, "Memory given back and taken again").
 */
const KEPT_BUFFERS = 4;

export interface ProtobufWriter {
  /** A batch as the body of one request: a view of a buffer not written again until released. */
  write(batch: SpanBatch): Uint8Array<ArrayBuffer>;
  /** Gives a body's buffer back once the collector took it (one never given back is garbage). */
  release(body: Uint8Array<ArrayBuffer>): void;
}

/** Writes batches as bodies of requests, for the service `serviceName`. */
export function otlpProtobufWriter(serviceName: string): ProtobufWriter {
  const resource = message(
    RESOURCE_SPANS_RESOURCE,
    message(
      RESOURCE_ATTRIBUTES,
      message(KEY, utf8("service.name")),
      message(VALUE, message(STRING_VALUE, utf8(serviceName))),
    ),
  );
  const scope = message(SCOPE_SPANS_SCOPE, message(SCOPE_NAME, utf8("construction-erp-api")));
  // The spans are written first, after room for the longest opening; the opening, its lengths
  // known then, is written to end where they begin.
  const headroom = 1 + 5 + resource.length + 1 + 5 + scope.length;
  let out: Uint8Array<ArrayBuffer> = new Uint8Array(headroom + 512 * 256);
  const kept: Uint8Array<ArrayBuffer>[] = [];
  // A span's string values and the sizes of its attributes' AnyValues, between its two passes.
  const strings: (Uint8Array | undefined)[] = [];
  const anySizes = new Int32Array(VALUES);

  const write = (batch: SpanBatch): Uint8Array<ArrayBuffer> => {
    const { shapes, names, details, traceIds, spanIds, parents, starts, ends, errors, values } =
      batch;
    let at = headroom;
    for (let i = 0; i < batch.filled; i++) {
      const shape = shapes[i]!;
      const keys = keyFields(shape);
      const name = utf8(names[i]!);
      const detail = details[i] === undefined ? undefined : utf8(details[i]!);
      const nameSize = name.length + (detail === undefined ? 0 : 1 + detail.length);
      let size = FIXED + 1 + varintSize(nameSize) + nameSize;
      if (parents[i]) size += PARENT;
      if (errors[i] === 1) size += ERROR;
      for (let k = 0; k < keys.length; k++) {
        const value = values[i * VALUES + k];
        let anySize = 0;
        if (typeof value === "string") {
          const text = utf8(value);
          strings[k] = text;
          anySize = 1 + varintSize(text.length) + text.length;
        } else if (typeof value === "boolean") {
          anySize = 2;
        } else if (typeof value === "number" && Number.isSafeInteger(Math.trunc(value))) {
          // Anything else an int64 cannot hold (NaN, infinities) is left out.
          split(Math.trunc(value));
          anySize = 1 + int64Size();
        }
        anySizes[k] = anySize;
        if (anySize === 0) continue;
        const pair = keys[k]!.length + 1 + varintSize(anySize) + anySize;
        size += 1 + varintSize(pair) + pair;
      }

      if (out.length < at + 6 + size) {
        const grown = new Uint8Array(Math.max(out.length * 2, at + 6 + size));
        grown.set(out.subarray(0, at));
        out = grown;
      }
      out[at++] = SCOPE_SPANS_SPANS;
      at = varint(out, at, size);
      at = id(out, at, TRACE_ID, traceIds[i]!);
      at = id(out, at, SPAN_ID, spanIds[i]!);
      const parent = parents[i];
      if (parent) at = id(out, at, PARENT_SPAN_ID, parent);
      out[at++] = NAME;
      at = bytes(out, varint(out, at, nameSize), name);
      if (detail !== undefined) {
        out[at++] = 0x20;
        at = bytes(out, at, detail);
      }
      out[at++] = KIND;
      out[at++] = KINDS[shape.kind];
      out[at++] = START_TIME;
      at = nanos(out, at, starts[i]!);
      out[at++] = END_TIME;
      at = nanos(out, at, ends[i]!);
      for (let k = 0; k < keys.length; k++) {
        const anySize = anySizes[k]!;
        if (anySize === 0) continue;
        const key = keys[k]!;
        out[at++] = ATTRIBUTES;
        at = varint(out, at, key.length + 1 + varintSize(anySize) + anySize);
        at = bytes(out, at, key);
        out[at++] = VALUE;
        at = varint(out, at, anySize);
        const value = values[i * VALUES + k];
        if (typeof value === "string") {
          const text = strings[k]!;
          out[at++] = STRING_VALUE;
          at = bytes(out, varint(out, at, text.length), text);
        } else if (typeof value === "boolean") {
          out[at++] = BOOL_VALUE;
          out[at++] = value ? 1 : 0;
        } else {
          split(Math.trunc(value as number));
          out[at++] = INT_VALUE;
          at = int64(out, at);
        }
      }
      if (errors[i] === 1) {
        out[at++] = STATUS;
        out[at++] = 2;
        out[at++] = STATUS_CODE;
        out[at++] = STATUS_ERROR;
      }
    }

    const scopeSpans = scope.length + (at - headroom);
    const resourceSpans = resource.length + 1 + varintSize(scopeSpans) + scopeSpans;
    const opening = 1 + varintSize(resourceSpans) + resource.length + 1 + varintSize(scopeSpans);
    const start = headroom - opening - scope.length;
    out[start] = REQUEST_RESOURCE_SPANS;
    let head = varint(out, start + 1, resourceSpans);
    head = bytes(out, head, resource);
    out[head] = RESOURCE_SPANS_SCOPE_SPANS;
    head = bytes(out, varint(out, head + 1, scopeSpans), scope);
    const body = out.subarray(start, at);
    out = kept.pop() ?? new Uint8Array(out.length);
    return body;
  };
  return {
    write,
    release(body) {
      if (kept.length < KEPT_BUFFERS) kept.push(new Uint8Array(body.buffer));
    },
  };
}
