// POST /v1/{resource}/batch: many creates or upserts in one request and one transaction.
import type { ResourceDefinition } from "../resources/definition.ts";
import { runBatch } from "../writes/batch.ts";
import { BatchResult } from "./batch-schemas.ts";
import { crudDetail } from "./crud-docs.ts";
import { pathsOf, runWrite, writeParsers, type RouteDeps } from "./route-context.ts";
import type { ResourceApp } from "./resource-routes.ts";

export function batchRoute(app: ResourceApp, def: ResourceDefinition, deps: RouteDeps): void {
  const { collection } = pathsOf(def);
  app.post(`${collection}/batch`, ({ request, company, body, ctx, set }) =>
    runWrite(deps, request, ctx, body, set, (tx) => runBatch(tx, {
      def, company, body, dryRun: ctx.dryRun, requestId: ctx.requestId,
      scope: { companyId: company.id },
      location: (id) => `${collection}/${id}`,
    })), {
    detail: crudDetail(def, "batch", writeParsers),
    response: { 200: BatchResult },
  });
}
