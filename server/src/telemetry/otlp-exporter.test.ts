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
      startMs,
      endMs: startMs + 0.25,
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
                    startTimeUnixNano: "1764000000123456000",
                    endTimeUnixNano: "1764000000123706000",
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
