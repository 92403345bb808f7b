// GET /healthz: liveness plus a database round trip; no token, not metered.
import { Elysia } from "elysia";
import { Type } from "@sinclair/typebox";
import { sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { ApiError } from "../http/problem.ts";

export function healthRoutes(db: Database) {
  return new Elysia({ name: "health" }).get("/healthz", async () => {
    try {
      await db.execute(sql`SELECT 1`);
    } catch {
      throw new ApiError(503, "database_unavailable", "The database cannot be reached right now.", undefined, { "retry-after": "2" });
    }
    return { status: "ok" as const };
  }, {
    detail: { summary: "Health check", tags: ["health"], security: [] },
    response: { 200: Type.Object({ status: Type.Literal("ok") }) },
  });
}
