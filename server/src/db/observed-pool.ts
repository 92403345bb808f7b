// Every statement timed where the server sends it: its latency for the metrics, its time added to
// the request's db_ms, and, when traces are exported, a span under the request's span.
import { histogramSeries } from "../telemetry/histogram-series.ts";
import { statementDuration } from "../telemetry/metrics.ts";
import { newSpanId } from "../telemetry/trace-context.ts";
import { recordSpan, tracing } from "../telemetry/tracing.ts";
import { currentUsage } from "./deadline.ts";
import type { GuardedConnection, GuardedPool } from "./pool.ts";

type Run = GuardedPool["query"];

/** The statement's first words, never its values: a span's name and `db.operation`. */
function operationOf(input: Parameters<Run>[0]): string {
  const text = typeof input === "string" ? input : input.sql;
  return /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? "SQL";
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
        if (usage.trace && tracing())
          recordSpan({
            name: `${operationOf(input)} ${pool}`,
            kind: "client",
            traceId: usage.trace.traceId,
            spanId: newSpanId(),
            parentSpanId: usage.trace.spanId,
            startMs: performance.timeOrigin + started,
            endMs: performance.timeOrigin + ended,
            error: failed,
            attributes: { "db.system": "mysql", "db.operation": operationOf(input) },
          });
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
