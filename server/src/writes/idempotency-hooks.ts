// Wires idempotency into the request lifecycle: fingerprints keyed writes, and binds a key to
// a body that fails its schema (a 422 is an outcome too, replayed like any other).
import { Elysia, ValidationError } from "elysia";
import type { Database } from "../db/client.ts";
import { bodyErrors } from "../http/errors.ts";
import { log } from "../log.ts";
import { ApiError, problemResponse, validationFailed } from "../http/problem.ts";
import { contextOf } from "../http/request-context.ts";
import { fingerprintOf } from "./fingerprint.ts";
import { runIdempotently } from "./idempotency.ts";

/** Register before the error handler: its onError must see schema failures first. */
export function idempotencyHooks(db: Database) {
  return new Elysia({ name: "idempotency" })
    .onTransform({ as: "global" }, ({ request, body }) => {
      const ctx = contextOf(request);
      if (ctx.idempotencyKey !== undefined) ctx.fingerprint = fingerprintOf(request.method, new URL(request.url).pathname, ctx.dryRun, body);
    })
    .onError({ as: "global" }, async ({ error, request }) => {
      if (!(error instanceof ValidationError) || error.type !== "body") return undefined;
      const ctx = contextOf(request);
      if (!ctx.company || ctx.idempotencyKey === undefined || ctx.fingerprint === undefined) return undefined;
      const failure = validationFailed(bodyErrors(error));
      try {
        const replay = await runIdempotently(db, ctx, async () => { throw failure; });
        return new Response(JSON.stringify(replay.body), { status: replay.status, headers: replay.headers });
      } catch (outcome) {
        // The 422 itself is now stored; the error handler renders it exactly as stored.
        if (outcome === failure) return undefined;
        if (outcome instanceof ApiError) return problemResponse(outcome, ctx.requestId);
        log.warn("idempotency check failed on a schema-invalid body", { request_id: ctx.requestId, error: String(outcome) });
        return undefined;
      }
    });
}
