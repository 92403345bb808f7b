// Every statement timed where the server sends it: its latency for the metrics, its time added to
// the request's db_ms, and, when traces are exported, a span under the request's span.
import { histogramSeries } from "../telemetry/histogram-series.ts";
import { statementDuration } from "../telemetry/metrics.ts";
import { newSpanId } from "../telemetry/trace-context.ts";
import type { SpanShape } from "../telemetry/span-types.ts";
import { recordSpan, tracing } from "../telemetry/tracing.ts";
import { currentUsage } from "./deadline.ts";
import type { GuardedConnection, GuardedPool } from "./pool.ts";

type Run = GuardedPool["query"];

/** When performance.now() began, epoch milliseconds. */
const ORIGIN_MS = performance.timeOrigin;

const STATEMENT_SPAN: SpanShape = { kind: "client", keys: ["db.system", "db.operation"] };

/** The statement's first word, never its values: a span's name and `db.operation`. */
function operationOf(input: Parameters<Run>[0]): string {
  const text = typeof input === "string" ? input : input.sql;
  let start = 0;
  while (start < text.length && text.charCodeAt(start) <= 0x20) start += 1;
  let end = start;
  for (let code = text.charCodeAt(end); (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a; )
    code = text.charCodeAt(++end);
  return end > start ? text.slice(start, end).toUpperCase() : "SQL";
}

function timed(pool: "read" | "write", run: Run): Run {
  const histogram = histogramSeries(statementDuration, { pool });
  return async (input, values) => {
    const started = performance.now();
    let failed = false;
    try {
      return await run(input, values);
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      const ended = performance.now();
      histogram.observe((ended - started) / 1000);
      const usage = currentUsage();
      if (usage) {
        usage.ms += ended - started;
        if (usage.trace && tracing()) {
          const operation = operationOf(input);
          recordSpan(
            STATEMENT_SPAN,
            operation,
            pool,
            usage.trace.traceId,
            newSpanId(),
            usage.trace.spanId,
            ORIGIN_MS + started,
            ORIGIN_MS + ended,
            failed,
            "mysql",
            operation,
          );
        }
      }
    }
  };
}

function observedConnection(
  pool: "read" | "write",
  connection: GuardedConnection,
): GuardedConnection {
  return Object.assign(Object.create(connection) as GuardedConnection, {
    query: timed(pool, connection.query.bind(connection)),
    execute: timed(pool, connection.execute.bind(connection)),
    // A write's commit text goes here (db/write-transaction.ts): timed like any statement.
    unbounded: timed(pool, (input) => connection.unbounded(input as string)),
  });
}

/** The pool with each statement observed; connections it hands out are observed too. */
export function observedPool(pool: "read" | "write", guarded: GuardedPool): GuardedPool {
  return {
    ...guarded,
    getConnection: async () => observedConnection(pool, await guarded.getConnection()),
    query: timed(pool, guarded.query),
    execute: timed(pool, guarded.execute),
  };
}
