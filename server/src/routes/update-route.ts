// PATCH one member: merge the fields sent, under every rule of the resource.
import type { AdmittedApp } from "../auth/admission.ts";
import { updateResult } from "../http/envelopes.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { recordSchema } from "../resources/schemas.ts";
import { updateRecordById } from "../writes/update.ts";
import { crudDetail } from "./crud-docs.ts";
import { runRecordWrite, writingShown } from "./record-write.ts";
import { memberWrite, pathsOf, writeParsers, type RouteDeps } from "./route-context.ts";
import { recordAnswer } from "./write-answers.ts";

export function updateRoute(app: AdmittedApp, def: ResourceDefinition, deps: RouteDeps): void {
  const { member } = pathsOf(def);
  app.patch(
    member,
    async ({ company, token, request, ctx, set, params }) =>
      runRecordWrite(deps, def, { company, token, request, ctx, set }, (shown) => ({
        operation: async (tx, body) =>
          updateRecordById(tx, deps.store, {
            ...(await memberWrite(tx.db, def, company, params, ctx)),
            body,
            shown,
          }),
        respond: (outcome) => recordAnswer(outcome, { shown }),
        options: writingShown(shown),
      })),
    {
      detail: crudDetail(def, "update", writeParsers),
      response: { 200: updateResult(recordSchema(def)) },
    },
  );
}
