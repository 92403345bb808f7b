// POST one member's restore: a soft-deleted record back as it was, checked as a create.
import type { AdmittedApp } from "../auth/admission.ts";
import { restoreResult } from "../http/envelopes.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { recordSchema } from "../resources/schemas.ts";
import { restoreRecordById } from "../writes/restore.ts";
import { crudDetail } from "./crud-docs.ts";
import { runRecordWrite } from "./record-write.ts";
import { memberIdOf, pathsOf, writeParsers, type RouteDeps } from "./route-context.ts";
import { recordAnswer } from "./write-answers.ts";

export function restoreRoute(app: AdmittedApp, def: ResourceDefinition, deps: RouteDeps): void {
  const { member } = pathsOf(def);
  app.post(
    `${member}/restore`,
    async ({ company, token, request, ctx, set, params }) =>
      runRecordWrite(deps, def, { company, token, request, ctx, set }, (shown) => ({
        operation: (tx) =>
          restoreRecordById(tx, deps.store.ids, {
            def,
            company,
            dryRun: ctx.dryRun,
            id: memberIdOf(def, params),
            scope: { companyId: company.id },
          }),
        respond: (outcome) => recordAnswer(outcome, { shown }),
        options: { takesBody: false, hidden: shown.hidden },
      })),
    {
      detail: crudDetail(def, "restore", writeParsers),
      response: { 200: restoreResult(recordSchema(def)) },
    },
  );
}
