// Spans reach an OTLP/HTTP collector as the protocol says: in its protobuf encoding by default,
// read back here by protobufjs from the protocol's own .proto files (testing/otlp-proto/), not by a decoder
// of ours, and in its JSON encoding when asked; both carry the same spans, field for field.
import { expect, test } from "bun:test";
import { decodeTraceRequest, EXPORT_REQUEST } from "../../../testing/src/otlp-decode.ts";
import { otlpProtocol, startOtlpExporter } from "./otlp-exporter.ts";
import { otlpProtobufWriter } from "./otlp-protobuf.ts";
import { newSpanBatch } from "./span-batch.ts";
import type { RecordSpan, SpanShape } from "./span-types.ts";

const REQUEST: SpanShape = {
  kind: "server",
  keys: ["http.route", "http.response.status_code", "erp.company_id", "ok"],
};
const STATEMENT: SpanShape = { kind: "client", keys: ["db.system", "db.operation"] };
const ODD: SpanShape = { kind: "internal", keys: ["note", "zero", "below", "large"] };

/** A protobuf body as the JSON encoding would say it. */
const decoded = (body: Uint8Array): any => decodeTraceRequest(body);

interface Received {
  contentType: string | null;
  bodies: Uint8Array[];
}

/** Starts an exporter on `env` to a receiver of its own, records the spans, shuts it down. */
async function exported(
  env: Record<string, string>,
  record: (exporter: RecordSpan) => void,
): Promise<Received> {
  const received: Received = { contentType: null, bodies: [] };
  const receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      expect(new URL(request.url).pathname).toBe("/v1/traces");
      received.contentType = request.headers.get("content-type");
      received.bodies.push(new Uint8Array(await request.arrayBuffer()));
      return Response.json({});
    },
  });
  try {
    const exporter = startOtlpExporter({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}/`,
      ...env,
    });
    record(exporter.export);
    await exporter.shutdown();
    return received;
  } finally {
    await receiver.stop(true);
  }
}

const TRACE = "0af7651916cd43dd8448eb211c80319c";

/** A collector that decodes each body and answers what `take` makes of its spans. */
const collector = (take: (spans: any[]) => Response | Promise<Response>) =>
  Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const body = decoded(new Uint8Array(await request.arrayBuffer()));
      return take(body.resourceSpans[0].scopeSpans[0].spans);
    },
  });

/** The span id of the `i`th statement span recordStatements records. */
const spanIdOf = (i: number): string => i.toString(16).padStart(16, "0");

/** `count` statement spans of one trace, numbered from 0 in their span ids and times. */
function recordStatements(record: RecordSpan, count: number): void {
  for (let i = 0; i < count; i++)
    record(
      STATEMENT,
      "SELECT",
      "read",
      TRACE,
      spanIdOf(i),
      undefined,
      1_764_000_000_000 + i,
      1_764_000_000_001 + i,
      false,
    );
}

/** A request span, its statement and a span of odd texts and numbers. */
function recordThree(record: RecordSpan): void {
  const startMs = 1_764_000_000_123.456;
  record(
    REQUEST,
    'GET "odd"',
    "/v1/workers/{id}",
    TRACE,
    "b7ad6b7169203331",
    "00f067aa0ba902b7",
    startMs,
    startMs + 1.5,
    true,
    "/v1/workers/{id}",
    503,
    // No company: the attribute is left out.
    null,
    false,
  );
  record(
    STATEMENT,
    "SELECT read",
    undefined,
    TRACE,
    "53995c3f42cd8ad8",
    undefined,
    1_764_000_001_000.25,
    // Rounds up into the next second.
    1_764_000_002_000 - 0.0001,
    false,
    "mysql\n",
    12_345,
  );
  record(
    ODD,
    'Zürich \\ "Baustelle" 🏗',
    "naïve ✓",
    "ffffffffffffffffffffffffffffffff",
    "0000000000000001",
    "ffffffffffffffff",
    // Rounds up into the next second; a microsecond past it.
    1_764_000_003_999.9995,
    1_764_000_004_000.0005,
    false,
    "Bétonnière 🏗 ✓",
    0,
    -42,
    2 ** 40 + 7,
  );
}

const THREE = {
  resourceSpans: [
    {
      resource: {
        attributes: [{ key: "service.name", value: { stringValue: "test-service" } }],
      },
      scopeSpans: [
        {
          scope: { name: "construction-erp-api" },
          spans: [
            {
              traceId: TRACE,
              spanId: "b7ad6b7169203331",
              parentSpanId: "00f067aa0ba902b7",
              name: 'GET "odd" /v1/workers/{id}',
              kind: 2,
              startTimeUnixNano: "1764000000123456000",
              endTimeUnixNano: "1764000000124956000",
              attributes: [
                { key: "http.route", value: { stringValue: "/v1/workers/{id}" } },
                { key: "http.response.status_code", value: { intValue: "503" } },
                { key: "ok", value: { boolValue: false } },
              ],
              status: { code: 2 },
            },
            {
              traceId: TRACE,
              spanId: "53995c3f42cd8ad8",
              name: "SELECT read",
              kind: 3,
              startTimeUnixNano: "1764000001000250000",
              endTimeUnixNano: "1764000002000000000",
              attributes: [
                { key: "db.system", value: { stringValue: "mysql\n" } },
                { key: "db.operation", value: { intValue: "12345" } },
              ],
            },
            {
              traceId: "ffffffffffffffffffffffffffffffff",
              spanId: "0000000000000001",
              parentSpanId: "ffffffffffffffff",
              name: 'Zürich \\ "Baustelle" 🏗 naïve ✓',
              kind: 1,
              startTimeUnixNano: "1764000004000000000",
              endTimeUnixNano: "1764000004000001000",
              attributes: [
                { key: "note", value: { stringValue: "Bétonnière 🏗 ✓" } },
                { key: "zero", value: { intValue: "0" } },
                { key: "below", value: { intValue: "-42" } },
                { key: "large", value: { intValue: String(2 ** 40 + 7) } },
              ],
            },
          ],
        },
      ],
    },
  ],
};

test("by default a batch is one ExportTraceServiceRequest in protobuf, every field as recorded", async () => {
  const received = await exported({ OTEL_SERVICE_NAME: "test-service" }, recordThree);
  expect(received.contentType).toBe("application/x-protobuf");
  expect(received.bodies.length).toBe(1);
  const body = received.bodies[0]!;
  expect(decoded(body)).toEqual(THREE);
  // protobufjs writes the same message byte for byte: fields in order, no padded varints.
  expect(EXPORT_REQUEST.encode(EXPORT_REQUEST.decode(body)).finish()).toEqual(body);
});

test("with http/json the same batch is one ExportTraceServiceRequest in OTLP/JSON", async () => {
  const received = await exported(
    { OTEL_SERVICE_NAME: "test-service", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json" },
    recordThree,
  );
  expect(received.contentType).toBe("application/json");
  expect(received.bodies.map((body) => JSON.parse(new TextDecoder().decode(body)))).toEqual([
    THREE,
  ]);
});

test("a batch far past the buffer's first size (a 20,000-byte span name) is written whole", async () => {
  const long = "x".repeat(20_000);
  const received = await exported({}, (record) => {
    for (let i = 0; i < 512; i++)
      record(
        STATEMENT,
        i === 7 ? long : `SELECT ${"y".repeat(300)}`,
        String(i),
        TRACE,
        i.toString(16).padStart(16, "0"),
        undefined,
        1_764_000_000_000 + i,
        1_764_000_000_001 + i,
        false,
        "mysql",
      );
  });
  expect(received.bodies.length).toBe(1);
  const body = received.bodies[0]!;
  const spans = decoded(body).resourceSpans[0].scopeSpans[0].spans;
  expect(spans.length).toBe(512);
  expect(spans[7].name).toBe(`${long} 7`);
  expect(spans[511]).toMatchObject({
    spanId: "00000000000001ff",
    name: expect.stringMatching(/ 511$/),
  });
  expect(EXPORT_REQUEST.encode(EXPORT_REQUEST.decode(body)).finish()).toEqual(body);
});

test("spans recorded after rounds with nothing to send, and past a full batch, are all sent", async () => {
  let received = 0;
  let requests = 0;
  const receiver = collector((spans) => {
    requests += 1;
    received += spans.length;
    return Response.json({});
  });
  try {
    const exporter = startOtlpExporter({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${receiver.port}/v1/traces`,
      OTEL_BSP_SCHEDULE_DELAY: "10",
    });
    await Bun.sleep(50);
    recordStatements(exporter.export, 700);
    await exporter.shutdown();
    expect(received).toBe(700);
    expect(requests).toBe(2);
  } finally {
    await receiver.stop(true);
  }
});

test("batches waiting while the collector is slow or refuses are each sent whole, none written over", async () => {
  const seen: string[] = [];
  let requests = 0;
  const receiver = collector(async (spans) => {
    for (const span of spans) seen.push(span.spanId);
    // Slow to answer, and refusing every other body: a refused body's buffer is not used again.
    await Bun.sleep(20);
    return new Response(null, { status: ++requests % 2 === 0 ? 503 : 200 });
  });
  try {
    const exporter = startOtlpExporter({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
    });
    // Six full batches at once: the later ones are written while the first is in flight.
    recordStatements(exporter.export, 6 * 512);
    await exporter.shutdown();
    expect(requests).toBe(6);
    expect(seen).toEqual(Array.from({ length: 6 * 512 }, (_, i) => spanIdOf(i)));
  } finally {
    await receiver.stop(true);
  }
});

test("a body's buffer is written again only after it is released", () => {
  const writer = otlpProtobufWriter("test");
  /** A batch of one statement span, the `i`th. */
  const batchOf = (i: number) => {
    const batch = newSpanBatch();
    batch.filled = 1;
    batch.shapes[0] = STATEMENT;
    batch.names[0] = "SELECT";
    batch.traceIds[0] = TRACE;
    batch.spanIds[0] = spanIdOf(i);
    return batch;
  };
  const spanIdIn = (body: Uint8Array) =>
    decoded(body).resourceSpans[0].scopeSpans[0].spans[0].spanId;
  const first = writer.write(batchOf(1));
  const second = writer.write(batchOf(2));
  writer.release(first);
  const third = writer.write(batchOf(3));
  const fourth = writer.write(batchOf(4));
  expect([second, third, fourth].map(spanIdIn)).toEqual([2, 3, 4].map(spanIdOf));
  // The released buffer took a later batch; the others were never shared.
  expect(fourth.buffer).toBe(first.buffer);
  expect(new Set([second.buffer, third.buffer, fourth.buffer]).size).toBe(3);
});

test("the protocol: the traces' own variable, then the general one, http/protobuf by default; grpc refused", () => {
  expect(otlpProtocol({})).toBe("http/protobuf");
  expect(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })).toBe("http/json");
  expect(
    otlpProtocol({
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    }),
  ).toBe("http/protobuf");
  expect(() => otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(
    'OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json, not "grpc"',
  );
  expect(() =>
    startOtlpExporter({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/xml",
    }),
  ).toThrow(
    'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be http/protobuf or http/json, not "http/xml"',
  );
});
