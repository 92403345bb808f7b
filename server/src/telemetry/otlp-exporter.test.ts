// Spans reach an OTLP/HTTP collector as the protocol's JSON encoding says.
import { expect, test } from "bun:test";
import { startOtlpExporter } from "./otlp-exporter.ts";
import type { SpanShape } from "./tracing.ts";

const REQUEST: SpanShape = {
  kind: "server",
  keys: ["http.route", "http.response.status_code", "erp.company_id", "ok"],
};
const STATEMENT: SpanShape = { kind: "client", keys: ["db.system", "db.operation"] };

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
    exporter.export(
      REQUEST,
      'GET "odd"',
      "/v1/workers/{id}",
      "0af7651916cd43dd8448eb211c80319c",
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
    exporter.export(
      STATEMENT,
      "SELECT read",
      undefined,
      "0af7651916cd43dd8448eb211c80319c",
      "53995c3f42cd8ad8",
      undefined,
      1_764_000_001_000.25,
      // Rounds up into the next second.
      1_764_000_002_000 - 0.0001,
      false,
      "mysql\n",
      12_345,
    );
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
                    attributes: [
                      { key: "db.system", value: { stringValue: "mysql\n" } },
                      { key: "db.operation", value: { intValue: "12345" } },
                    ],
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
      exporter.export(
        STATEMENT,
        "SELECT",
        "read",
        "0af7651916cd43dd8448eb211c80319c",
        i.toString(16).padStart(16, "0"),
        undefined,
        1_764_000_000_000 + i,
        1_764_000_000_001 + i,
        false,
      );
    await exporter.shutdown();
    expect(received).toBe(700);
    expect(requests).toBe(2);
  } finally {
    await receiver.stop(true);
  }
});
