// Each answered request observed once, where the server hands it to the app: counted and timed by
// route template and status (metrics), written as one log line, and, when traces are exported,
// recorded as the span its statements' spans hang under.
import type { DatabaseUsage } from "../db/deadline.ts";
import {
  httpDuration,
  httpRequests,
  longPollWaiters,
  rateLimitRefusals,
} from "../telemetry/metrics.ts";
import { companyOf } from "../telemetry/request-facts.ts";
import { type LogFormat, RequestLog } from "../telemetry/request-log.ts";
import { routeTemplates } from "../telemetry/route-templates.ts";
import { sampled } from "../telemetry/trace-context.ts";
import { recordSpan, tracing } from "../telemetry/tracing.ts";
import { contextOf } from "./request-context.ts";

type Observation = { inc(): void; observe(seconds: number): void };

export interface ObserveRequests {
  (request: Request, handle: (usage: DatabaseUsage) => Promise<Response>): Promise<Response>;
  /** Writes the log lines still buffered (at shutdown). */
  flush(): void;
}

export function observeRequests(
  routes: readonly { method: string; path: string }[],
  format: LogFormat,
): ObserveRequests {
  const templateOf = routeTemplates(routes);
  const log = new RequestLog(format);
  // prom-client looks a label set up by a key it builds per call; a request's set is one of a
  // few hundred, so each is looked up once.
  const series = new Map<string, Observation>();
  const seriesOf = (method: string, route: string, status: number): Observation => {
    const key = `${method} ${route} ${status}`;
    let found = series.get(key);
    if (!found) {
      const labels = { method, route, status: String(status) };
      const counter = httpRequests.labels(labels);
      const histogram = httpDuration.labels(labels);
      found = { inc: () => counter.inc(), observe: (seconds) => histogram.observe(seconds) };
      series.set(key, found);
    }
    return found;
  };

  const observe = (async (request, handle) => {
    const started = performance.now();
    const startMs = performance.timeOrigin + started;
    const ctx = contextOf(request);
    const usage: DatabaseUsage = { ms: 0, trace: sampled(ctx.trace) ? ctx.trace : undefined };
    const pathname = pathOf(request.url);
    const route = templateOf(request.method, pathname);
    const polling = route === "/v1/events" && request.url.includes("wait=");
    if (polling) longPollWaiters.inc();
    let status = 500;
    try {
      const response = await handle(usage);
      status = response.status;
      return response;
    } finally {
      if (polling) longPollWaiters.dec();
      const ended = performance.now();
      const one = seriesOf(request.method, route, status);
      one.inc();
      one.observe((ended - started) / 1000);
      if (status === 429) rateLimitRefusals.inc();
      const companyId = companyOf(request);
      log.write({
        request_id: ctx.requestId,
        trace_id: ctx.trace.traceId,
        company_id: companyId,
        method: request.method,
        route,
        status,
        duration_ms: Math.round((ended - started) * 100) / 100,
        db_ms: Math.round(usage.ms * 100) / 100,
      });
      if (tracing() && sampled(ctx.trace))
        recordSpan({
          name: `${request.method} ${route}`,
          kind: "server",
          traceId: ctx.trace.traceId,
          spanId: ctx.trace.spanId,
          parentSpanId: ctx.trace.parentSpanId,
          startMs,
          endMs: performance.timeOrigin + ended,
          error: status >= 500,
          attributes: {
            "http.request.method": request.method,
            "http.route": route,
            "http.response.status_code": status,
            ...(companyId === null ? {} : { "erp.company_id": companyId }),
          },
        });
    }
  }) as ObserveRequests;
  observe.flush = () => log.flush();
  return observe;
}

/** The path of a request URL without parsing it whole (`http://host:port/path?query`). */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const query = url.indexOf("?", start);
  return query === -1 ? url.slice(start) : url.slice(start, query);
}
