// A series observed without prom-client's child renders exactly what the child would have.
import { expect, test } from "bun:test";
import { Histogram, Registry } from "prom-client";
import { histogramSeries } from "./histogram-series.ts";

const BUCKETS = [0.001, 0.01, 0.1, 1];
const VALUES = [0.0005, 0.001, 0.004, 0.05, 0.05, 0.7, 3, 12];

function histogram(name: string) {
  const registry = new Registry();
  const made = new Histogram({
    name,
    help: "test",
    labelNames: ["method", "status"] as const,
    buckets: BUCKETS,
    registers: [registry],
  });
  return { registry, made };
}

async function rendered(observe: (made: Histogram<"method" | "status">) => void) {
  const { registry, made } = histogram("latency_seconds");
  observe(made);
  return registry.metrics();
}

test("a series renders as the same observations through prom-client's child", async () => {
  const viaChild = await rendered((made) => {
    for (const value of VALUES) made.labels({ method: "GET", status: "200" }).observe(value);
    made.labels({ method: "POST", status: "201" }).observe(0.02);
  });
  const viaSeries = await rendered((made) => {
    const get = histogramSeries(made, { method: "GET", status: "200" });
    const post = histogramSeries(made, { method: "POST", status: "201" });
    // Found prom-client's own values: the per-call child is never used.
    made.labels = () => {
      throw new Error("observed through the child");
    };
    for (const value of VALUES) get.observe(value);
    post.observe(0.02);
    expect(get.count).toBe(VALUES.length);
    expect(post.count).toBe(1);
  });
  expect(viaSeries).toBe(viaChild);
  expect(viaSeries).toContain('latency_seconds_bucket{le="0.01",method="GET",status="200"} 3');
  expect(viaSeries).toContain('latency_seconds_count{method="GET",status="200"} 8');
});

test("observations made through the child before and after are kept with the series'", async () => {
  const { registry, made } = histogram("mixed_seconds");
  made.labels({ method: "GET", status: "200" }).observe(0.5);
  const series = histogramSeries(made, { method: "GET", status: "200" });
  series.observe(0.5);
  made.labels({ method: "GET", status: "200" }).observe(0.5);
  expect(await registry.metrics()).toContain('mixed_seconds_count{method="GET",status="200"} 3');
});

test("a reset histogram starts the series again from zero", async () => {
  const { registry, made } = histogram("reset_seconds");
  const series = histogramSeries(made, { method: "GET", status: "200" });
  series.observe(0.5);
  made.reset();
  expect(series.count).toBe(0);
  series.observe(0.002);
  expect(series.count).toBe(1);
  const text = await registry.metrics();
  expect(text).toContain('reset_seconds_count{method="GET",status="200"} 1');
  expect(text).toContain('reset_seconds_bucket{le="0.01",method="GET",status="200"} 1');
});

test("a value that is not a number is refused, as prom-client refuses it", () => {
  const { made } = histogram("refused_seconds");
  expect(() => histogramSeries(made, { method: "GET", status: "200" }).observe(Number.NaN)).toThrow(
    TypeError,
  );
});
