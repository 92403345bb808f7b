// GET /healthz: liveness and the database's state, for load balancers; no token, not metered.
// The database gets a short budget of its own, so a hung database is reported, not waited on.
import { Elysia } from "elysia";
import { Type } from "@sinclair/typebox";
import { sql } from "drizzle-orm";
import { selectRows } from "../db/sql.ts";
import type { Database } from "../db/client.ts";
import { withDatabaseBudget } from "../db/deadline.ts";
import { databaseUnavailable } from "../refusals/catalogue.ts";
import { operationDetail } from "../http/operation-docs.ts";

const HEALTH_BUDGET_MS = 2_000;

export function healthRoutes(db: Database) {
  return new Elysia({ name: "health" }).get(
    "/healthz",
    async () => {
      const started = performance.now();
      try {
        await withDatabaseBudget(() => selectRows(db, sql`SELECT 1`), HEALTH_BUDGET_MS);
      } catch {
        throw databaseUnavailable();
      }
      return {
        status: "ok" as const,
        database: "up" as const,
        database_ms: Math.round(performance.now() - started),
      };
    },
    {
      detail: operationDetail({
        operationId: "getHealth",
        summary: "Health check",
        description:
          `Liveness and the database's state: 200 when a round trip to the database ` +
          `succeeds within ${HEALTH_BUDGET_MS / 1000} s, else 503 database_unavailable (with ` +
          `Retry-After) within that time. Needs no token and is not metered.`,
        tags: ["health"],
        public: true,
        responses: { 200: { description: "The server and its database answer." } },
        refusals: ["database_unavailable"],
      }),
      response: {
        200: Type.Object(
          {
            status: Type.Literal("ok"),
            database: Type.Literal("up"),
            database_ms: Type.Integer({ description: "How long the database round trip took." }),
          },
          { additionalProperties: false, title: "Health" },
        ),
      },
    },
  );
}
