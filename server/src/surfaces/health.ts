// GET /healthz: liveness plus a database round trip; no token, not metered.
import { Elysia } from "elysia";
import { Type } from "@sinclair/typebox";
import { sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { ApiError } from "../http/problem.ts";
import { operationDetail } from "../http/operation-docs.ts";

export function healthRoutes(db: Database) {
  return new Elysia({ name: "health" }).get("/healthz", async () => {
    try {
      await db.execute(sql`SELECT 1`);
    } catch {
      throw new ApiError(503, "database_unavailable", "The database cannot be reached right now.", undefined, { "retry-after": "2" });
    }
    return { status: "ok" as const };
  }, {
    detail: operationDetail({
      operationId: "getHealth",
      summary: "Health check",
      description: "Liveness plus a database round trip. Needs no token and is not metered.",
      tags: ["health"],
      public: true,
      responses: { 200: { description: "The server and its database answer." } },
      errors: { 503: ["database_unavailable"] },
    }),
    response: { 200: Type.Object({ status: Type.Literal("ok") }, { additionalProperties: false, title: "Health" }) },
  });
}
