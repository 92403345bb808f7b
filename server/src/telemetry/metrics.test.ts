// The requests' counter is read from the latency series when scraped: one observation per answer.
import { expect, test } from "bun:test";
import { registry, requestSeries } from "./metrics.ts";

test("each answer observed once is counted once, by method, route and status", async () => {
  const ok = requestSeries({ method: "GET", route: "/v1/test-counted/{id}", status: "200" });
  const missing = requestSeries({ method: "GET", route: "/v1/test-counted/{id}", status: "404" });
  for (let i = 0; i < 5; i++) ok.observe(0.003);
  missing.observe(0.001);
  const first = await registry.metrics();
  expect(first).toContain(
    'erp_http_requests_total{method="GET",route="/v1/test-counted/{id}",status="200"} 5',
  );
  expect(first).toContain(
    'erp_http_requests_total{method="GET",route="/v1/test-counted/{id}",status="404"} 1',
  );
  expect(first).toContain(
    'erp_http_request_duration_seconds_count{method="GET",route="/v1/test-counted/{id}",status="200"} 5',
  );
  ok.observe(0.2);
  const second = await registry.metrics();
  expect(second).toContain(
    'erp_http_requests_total{method="GET",route="/v1/test-counted/{id}",status="200"} 6',
  );
  expect(second).toContain(
    'erp_http_requests_total{method="GET",route="/v1/test-counted/{id}",status="404"} 1',
  );
});
