// Each answered request observed once, where the server hands it to the app: counted and timed by
// route template and status (metrics), written as one log line, and, when traces are exported,
// recorded as the span its statements' spans hang under.
import type { DatabaseUsage } from "../db/deadline.ts";
import type { HistogramSeries } from "../telemetry/histogram-series.ts";
import { longPollWaiters, rateLimitRefusals, requestSeries } from "../telemetry/metrics.ts";
import { companyOf } from "../telemetry/request-facts.ts";
import { type LogFormat, RequestLog } from "../telemetry/request-log.ts";
import { routeTemplates } from "../telemetry/route-templates.ts";
import { sampled } from "../telemetry/trace-context.ts";
import type { SpanShape } from "../telemetry/span-types.ts";
import { recordSpan, tracing } from "../telemetry/tracing.ts";
import { contextOf } from "./request-context.ts";

/** When performance.now() began, epoch milliseconds. */
const ORIGIN_MS = performance.timeOrigin;

const REQUEST_SPAN: SpanShape = {
  kind: "server",
  keys: ["http.request.method", "http.route", "http.response.status_code", "erp.company_id"],
};

export interface ObserveRequests {
  (
    request: Request,
    handle: (usage: DatabaseUsage) => Response | Promise<Response>,
  ): Promise<Response>;
  /** Writes the log lines still buffered (at shutdown). */
  flush(): void;
}

export function observeRequests(
  routes: readonly { method: string; path: string }[],
  format: LogFormat,
): ObserveRequests {
  const templateOf = routeTemplates(routes);
  const log = new RequestLog(format);
  // A request's label set is one of a few hundred: each is made once, then found by route, method
  // and status without building a key.
  const series = new Map<string, Map<string, Map<number, HistogramSeries>>>();
  const seriesOf = (method: string, route: string, status: number): HistogramSeries => {
    let byMethod = series.get(route);
    if (!byMethod) {
      byMethod = new Map();
      series.set(route, byMethod);
    }
    let byStatus = byMethod.get(method);
    if (!byStatus) {
      byStatus = new Map();
      byMethod.set(method, byStatus);
    }
    let found = byStatus.get(status);
    if (!found) {
      found = requestSeries({ method, route, status: String(status) });
      byStatus.set(status, found);
    }
    return found;
  };

  const observe = (async (request, handle) => {
    const started = performance.now();
    const ctx = contextOf(request);
    const usage: DatabaseUsage = { ms: 0, trace: sampled(ctx.trace) ? ctx.trace : undefined };
    const { method, url } = request;
    const route = templateOf(method, pathOf(url));
    const polling = route === "/v1/events" && url.includes("wait=");
    if (polling) longPollWaiters.inc();
    let status = 500;
    try {
      const response = await handle(usage);
      status = response.status;
      return response;
    } finally {
      if (polling) longPollWaiters.dec();
      const ended = performance.now();
      seriesOf(method, route, status).observe((ended - started) / 1000);
      if (status === 429) rateLimitRefusals.inc();
      const companyId = companyOf(request);
      log.write({
        request_id: ctx.requestId,
        trace_id: ctx.trace.traceId,
        company_id: companyId,
        method,
        route,
        status,
        duration_ms: Math.round((ended - started) * 100) / 100,
        db_ms: Math.round(usage.ms * 100) / 100,
      });
      if (tracing() && sampled(ctx.trace))
        recordSpan(
          REQUEST_SPAN,
          method,
          route,
          ctx.trace.traceId,
          ctx.trace.spanId,
          ctx.trace.parentSpanId,
          ORIGIN_MS + started,
          ORIGIN_MS + ended,
          status >= 500,
          method,
          route,
          status,
          companyId,
        );
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
