// The observability leg's receiver counts every span the server's exporter sends, in either encoding.
import { expect, test } from "bun:test";
import { startOtlpExporter } from "../server/src/telemetry/otlp-exporter.ts";
import type { SpanShape } from "../server/src/telemetry/span-types.ts";
import { countSpans } from "./otlp-span-count.ts";

const REQUEST: SpanShape = {
  kind: "server",
  keys: ["http.request.method", "http.route", "http.response.status_code", "erp.company_id"],
};

test.each(["http/protobuf", "http/json"])(
  "the spans of %s requests are counted",
  async (protocol) => {
    let counted = 0;
    const receiver = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        const body = new Uint8Array(await request.arrayBuffer());
        counted += countSpans(request.headers.get("content-type"), body);
        return Response.json({});
      },
    });
    try {
      const exporter = startOtlpExporter({
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      });
      for (let i = 0; i < 700; i++)
        exporter.export(
          REQUEST,
          "GET",
          `/v1/workers/{id}${"x".repeat(i)}`,
          "4bf92f3577b34da6a3ce929d0e0e4736",
          i.toString(16).padStart(16, "0"),
          i % 2 === 0 ? "00f067aa0ba902b7" : undefined,
          1_764_000_000_000 + i,
          1_764_000_000_001 + i,
          i % 3 === 0,
          "GET",
          "/v1/workers/{id}",
          200,
          -i,
        );
      await exporter.shutdown();
      expect(counted).toBe(700);
    } finally {
      await receiver.stop(true);
    }
  },
);
