// POST /v1/{resource}/batch: many creates, upserts or updates by id in one request and one transaction.
import type { AdmittedApp } from "../auth/admission.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import type { Shown } from "../resources/shown.ts";
import { batchItems } from "../telemetry/metrics.ts";
import { type BatchSummary, runBatch } from "../writes/batch.ts";
import { BatchResult } from "./batch-schemas.ts";
import { crudDetail } from "./crud-docs.ts";
import { runRecordWrite } from "./record-write.ts";
import { pathsOf, writeParsers, type RouteDeps } from "./route-context.ts";
import { dataAnswer } from "./write-answers.ts";

export function batchRoute(app: AdmittedApp, def: ResourceDefinition, deps: RouteDeps): void {
  const { collection } = pathsOf(def);
  app.post(
    `${collection}/batch`,
    async ({ company, token, request, ctx, set }) =>
      countBatchItems(
        await runRecordWrite(deps, def, { company, token, request, ctx, set }, (shown) => ({
          operation: (tx, body, { itemKeysRead }) =>
            runBatch(tx, deps.store.ids, {
              def,
              company,
              body,
              dryRun: ctx.dryRun,
              requestId: ctx.requestId,
              itemKeysRead,
              scope: { companyId: company.id },
              shown,
            }),
          respond: dataAnswer,
          options: { batch: true, allowed: (body) => refuseWrittenItems(shown, body) },
        })),
      ),
    {
      detail: crudDetail(def, "batch", writeParsers),
      response: { 200: BatchResult },
    },
  );
}

/** 403 when an item of the batch sets a field the token may not write (a sensitive one). */
function refuseWrittenItems(shown: Shown, body: unknown): void {
  const items = (body as { items?: unknown } | null)?.items;
  if (Array.isArray(items)) for (const item of items) shown.refuseWritten(item);
}

/**
 * Counts a batch's answered items by outcome (a replayed batch's answer counts again): one increment
 * per outcome, not per item (a label look-up hashes its labels).
 */
function countBatchItems(answer: { data: BatchSummary }): { data: BatchSummary } {
  const { data } = answer;
  if (data.dry_run) return answer;
  const counts = new Map<string, number>();
  for (const result of data.results) {
    const outcome = result.error
      ? "failed"
      : result.replayed
        ? "replayed"
        : (result.action ?? "failed");
    counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  }
  for (const [outcome, count] of counts) batchItems.labels(outcome).inc(count);
  return answer;
}
