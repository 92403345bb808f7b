// POST /v1/{resource}/batch: many creates or upserts in one request and one transaction.
import type { AdmittedApp } from "../auth/admission.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { runBatch } from "../writes/batch.ts";
import { BatchResult } from "./batch-schemas.ts";
import { crudDetail } from "./crud-docs.ts";
import { pathsOf, runWrite, writeParsers, type RouteDeps } from "./route-context.ts";

export function batchRoute(app: AdmittedApp, def: ResourceDefinition, deps: RouteDeps): void {
  const { collection } = pathsOf(def);
  app.post(`${collection}/batch`, (call) =>
    runWrite(deps, call, (tx, body, { itemKeysRead }) => runBatch(tx, deps.store.ids, {
      def, company: call.company, body, dryRun: call.ctx.dryRun, requestId: call.ctx.requestId, itemKeysRead,
      scope: { companyId: call.company.id },
    })), {
    detail: crudDetail(def, "batch", writeParsers),
    response: { 200: BatchResult },
  });
}
