// POST /v1/{resource}/batch: many creates, upserts or updates by id in one request and one transaction.
import type { AdmittedApp } from "../auth/admission.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { batchItems } from "../telemetry/metrics.ts";
import { type BatchSummary, runBatch } from "../writes/batch.ts";
import { BatchResult } from "./batch-schemas.ts";
import { crudDetail } from "./crud-docs.ts";
import { pathsOf, runWrite, writeParsers, type RouteDeps } from "./route-context.ts";
import { dataAnswer } from "./write-answers.ts";

export function batchRoute(app: AdmittedApp, def: ResourceDefinition, deps: RouteDeps): void {
  const { collection } = pathsOf(def);
  app.post(
    `${collection}/batch`,
    async ({ company, request, ctx, set }) =>
      countBatchItems(
        await runWrite(
          deps,
          { company, request, ctx, set },
          (tx, body, { itemKeysRead }) =>
            runBatch(tx, deps.store.ids, {
              def,
              company,
              body,
              dryRun: ctx.dryRun,
              requestId: ctx.requestId,
              itemKeysRead,
              scope: { companyId: company.id },
            }),
          dataAnswer,
          { batch: true },
        ),
      ),
    {
      detail: crudDetail(def, "batch", writeParsers),
      response: { 200: BatchResult },
    },
  );
}

/** Counts a batch's answered items by outcome (a replayed batch's answer counts again). */
function countBatchItems(answer: { data: BatchSummary }): { data: BatchSummary } {
  const { data } = answer;
  if (!data.dry_run)
    for (const result of data.results)
      batchItems
        .labels(
          result.error ? "failed" : result.replayed ? "replayed" : (result.action ?? "failed"),
        )
        .inc();
  return answer;
}
