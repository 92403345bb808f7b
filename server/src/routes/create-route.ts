// POST to a collection: create a record (201), or preview it (200 in a dry-run).
import { CreatedResult, DryRunCreatedResult } from "../http/envelopes.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { createRecord } from "../writes/create.ts";
import { crudDetail } from "./crud-docs.ts";
import { pathsOf, runWrite, scopeOf, writeParsers, type RouteDeps } from "./route-context.ts";
import type { ResourceApp } from "./resource-routes.ts";

export function createRoute(app: ResourceApp, def: ResourceDefinition, deps: RouteDeps): void {
  app.post(pathsOf(def).collection, ({ request, company, params, body, ctx, set }) =>
    runWrite(deps, request, ctx, body, set, async (tx) => createRecord(tx, {
      def, company, body, dryRun: ctx.dryRun,
      scope: await scopeOf(tx, def, company, params, true),
      location: (id) => `${new URL(request.url).pathname}/${id}`,
    })), {
    detail: crudDetail(def, "create", writeParsers),
    response: { 200: DryRunCreatedResult, 201: CreatedResult },
  });
}
