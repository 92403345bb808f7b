// The gauges read when Prometheus scrapes: the database pools' state and the webhook backlog.
import { sql } from "drizzle-orm";
import { selectRows } from "./db/sql.ts";
import type mysql from "mysql2/promise";
import type { DatabaseHandle } from "./db/client.ts";
import { withDatabaseBudget } from "./db/deadline.ts";
import { gauge } from "./telemetry/metrics.ts";

/** The driver's own queues (mysql2 keeps them as fields of its pool, not as an API). */
interface PoolQueues {
  _allConnections: { length: number };
  _freeConnections: { length: number };
  _connectionQueue: { length: number };
}

const queuesOf = (pool: mysql.Pool): PoolQueues => pool.pool as unknown as PoolQueues;

/** A scrape waits this long for the backlog's count before it leaves the gauge out. */
const BACKLOG_BUDGET_MS = 2_000;

export function registerServerGauges(database: DatabaseHandle): void {
  const pools = { read: queuesOf(database.pool), write: queuesOf(database.writePool) };
  gauge(
    "erp_db_pool_connections_in_use",
    "Database connections handed out, by pool.",
    ["pool"],
    (set) => {
      for (const [pool, queues] of Object.entries(pools))
        set({ pool }, queues._allConnections.length - queues._freeConnections.length);
    },
  );
  gauge(
    "erp_db_pool_waiting",
    "Requests waiting for a database connection, by pool.",
    ["pool"],
    (set) => {
      for (const [pool, queues] of Object.entries(pools))
        set({ pool }, queues._connectionQueue.length);
    },
  );
  gauge(
    "erp_webhook_deliveries",
    "Webhook deliveries of every company by status: pending (to be sent or retried) and failed.",
    ["status"],
    async (set) => {
      let rows: { status: string; total: number | string }[];
      try {
        rows = await withDatabaseBudget(
          () =>
            selectRows<(typeof rows)[number]>(
              database.db,
              sql`SELECT status, COUNT(*) AS total FROM webhook_deliveries
              WHERE status IN ('pending', 'failed') GROUP BY status`,
            ),
          BACKLOG_BUDGET_MS,
        );
      } catch {
        return; // a database that does not answer leaves the backlog out of this scrape
      }
      set({ status: "pending" }, 0);
      set({ status: "failed" }, 0);
      for (const row of rows) set({ status: row.status }, Number(row.total));
    },
  );
}
