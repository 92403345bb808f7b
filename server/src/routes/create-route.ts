// POST to a collection: create a record (201), or preview it (200 in a dry-run).
import type { AdmittedApp } from "../auth/admission.ts";
import { createdResult, DryRunCreatedResult } from "../http/envelopes.ts";
import { recordSchema } from "../resources/schemas.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { createRecord } from "../writes/create.ts";
import { crudDetail } from "./crud-docs.ts";
import { pathsOf, runWrite, scopeOf, writeParsers, type RouteDeps } from "./route-context.ts";

export function createRoute(app: AdmittedApp, def: ResourceDefinition, deps: RouteDeps): void {
  app.post(pathsOf(def).collection, (call) =>
    runWrite(deps, call, async (tx, body) => createRecord(tx, deps.store.ids, {
      def, company: call.company, body, dryRun: call.ctx.dryRun,
      scope: await scopeOf(tx.db, def, call.company, call.params, true),
      collection: new URL(call.request.url).pathname,
      representation: call.ctx.representation,
    })), {
    detail: crudDetail(def, "create", writeParsers),
    response: { 201: createdResult(recordSchema(def)), 200: DryRunCreatedResult },
  });
}
