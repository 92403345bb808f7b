// Spans reach an OTLP/HTTP collector as the protocol's JSON encoding says.
import { expect, test } from "bun:test";
import { startOtlpExporter } from "./otlp-exporter.ts";

test("a batch of spans is one ExportTraceServiceRequest in OTLP/JSON", async () => {
  const bodies: unknown[] = [];
  const receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      expect(new URL(request.url).pathname).toBe("/v1/traces");
      expect(request.headers.get("content-type")).toBe("application/json");
      bodies.push(await request.json());
      return Response.json({});
    },
  });
  try {
    const exporter = startOtlpExporter({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}/`,
      OTEL_SERVICE_NAME: "test-service",
    });
    const startMs = 1_764_000_000_123.456;
    exporter.export({
      name: 'GET "odd" /v1/workers/{id}',
      kind: "server",
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: "b7ad6b7169203331",
      parentSpanId: "00f067aa0ba902b7",
      startMs,
      endMs: startMs + 1.5,
      error: true,
      attributes: { "http.route": "/v1/workers/{id}", "http.response.status_code": 503, ok: false },
    });
    exporter.export({
      name: "SELECT read",
      kind: "client",
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: "53995c3f42cd8ad8",
      parentSpanId: undefined,
      startMs: 1_764_000_001_000.25,
      // Rounds up into the next second.
      endMs: 1_764_000_002_000 - 0.0001,
      attributes: {},
    });
    await exporter.shutdown();
    expect(bodies).toEqual([
      {
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
                    traceId: "0af7651916cd43dd8448eb211c80319c",
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
                    traceId: "0af7651916cd43dd8448eb211c80319c",
                    spanId: "53995c3f42cd8ad8",
                    name: "SELECT read",
                    kind: 3,
                    startTimeUnixNano: "1764000001000250000",
                    endTimeUnixNano: "1764000002000000000",
                    attributes: [],
                  },
                ],
              },
            ],
          },
        ],
      },
    ]);
  } finally {
    await receiver.stop(true);
  }
});

test("spans recorded after rounds with nothing to send, and past a full batch, are all sent", async () => {
  let received = 0;
  let requests = 0;
  const receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const body = (await request.json()) as {
        resourceSpans: { scopeSpans: { spans: unknown[] }[] }[];
      };
      requests += 1;
      received += body.resourceSpans[0]!.scopeSpans[0]!.spans.length;
      return Response.json({});
    },
  });
  try {
    const exporter = startOtlpExporter({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${receiver.port}/v1/traces`,
      OTEL_BSP_SCHEDULE_DELAY: "10",
    });
    await Bun.sleep(50);
    for (let i = 0; i < 700; i++)
      exporter.export({
        name: "SELECT read",
        kind: "client",
        traceId: "0af7651916cd43dd8448eb211c80319c",
        spanId: i.toString(16).padStart(16, "0"),
        parentSpanId: undefined,
        startMs: 1_764_000_000_000 + i,
        endMs: 1_764_000_000_001 + i,
        attributes: {},
      });
    await exporter.shutdown();
    expect(received).toBe(700);
    expect(requests).toBe(2);
  } finally {
    await receiver.stop(true);
  }
});
