// The Prometheus series a server exposes (docs/operations.md lists them). Labels are bounded sets:
// methods, route templates, status codes and outcome names; never a company, token, id or text.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { type HistogramSeries, histogramSeries } from "./histogram-series.ts";

export const registry = new Registry();
// The process's own series (CPU, memory, open files against their limit), read at each scrape.
collectDefaultMetrics({ register: registry });
// But not the heap's spaces: Bun finds them by walking the whole heap, 20-60 ms of the event loop
// at each scrape (docs/operations.md); the heap's size and use stay (nodejs_heap_size_*_bytes).
for (const space of ["total", "used", "available"])
  registry.removeSingleMetric(`nodejs_heap_space_size_${space}_bytes`);

/** Seconds; from a hot read (about a millisecond) to the 10 s budget of a request. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type RequestLabels = { method: string; route: string; status: string };

/** Each label set of the requests' series, and how many of its requests the counter has counted. */
const answered: { labels: RequestLabels; latency: HistogramSeries; counted: number }[] = [];

export const httpRequests = new Counter({
  name: "erp_http_requests_total",
  help: "HTTP requests answered, by method, route template and status code.",
  labelNames: ["method", "route", "status"] as const,
  registers: [registry],
  // Counted when scraped, from the latency series' counts: a request is observed once.
  collect() {
    for (const one of answered) {
      const count = one.latency.count;
      if (count < one.counted) one.counted = 0;
      if (count > one.counted) this.inc(one.labels, count - one.counted);
      one.counted = count;
    }
  },
});

export const httpDuration = new Histogram({
  name: "erp_http_request_duration_seconds",
  help: "Time from a request's arrival to its answer, by method, route template and status code.",
  labelNames: ["method", "route", "status"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

/** The series of one method, route template and status: each answer counted and timed by `observe`. */
export function requestSeries(labels: RequestLabels): HistogramSeries {
  const latency = histogramSeries(httpDuration, labels);
  answered.push({ labels, latency, counted: 0 });
  return latency;
}

export const rateLimitRefusals = new Counter({
  name: "erp_rate_limit_refusals_total",
  help: "Requests refused with 429 rate_limited.",
  registers: [registry],
});

export const statementDuration = new Histogram({
  name: "erp_db_statement_duration_seconds",
  help: "Time a database statement (or a write's one-text transaction) took, by pool.",
  labelNames: ["pool"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const groupCommitSize = new Histogram({
  name: "erp_group_commit_writes",
  help: "Writes committed together in one text by the group commit.",
  buckets: [1, 2, 4, 8, 16, 32, 64],
  registers: [registry],
});

export const longPollWaiters = new Gauge({
  name: "erp_long_poll_waiters",
  help: "Change-feed requests (wait=N) waiting for an event in this process.",
  registers: [registry],
});

export const batchItems = new Counter({
  name: "erp_batch_items_total",
  help: "Batch items answered, by outcome (created, updated, unchanged, replayed, failed).",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

export const webhookAttemptDuration = new Histogram({
  name: "erp_webhook_attempt_duration_seconds",
  help: "Time a webhook delivery attempt took, by result (delivered or failed).",
  labelNames: ["result"] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

/** Series whose value is read when Prometheus scrapes (a pool's state, the deliveries' backlog). */
export function gauge(
  name: string,
  help: string,
  labelNames: readonly string[],
  collect: (set: (labels: Record<string, string>, value: number) => void) => void | Promise<void>,
): void {
  new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      this.reset();
      await collect((labels, value) => this.set(labels, value));
    },
  });
}
