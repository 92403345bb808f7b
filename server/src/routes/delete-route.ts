// DELETE one member: a soft delete, refused while protected history depends on it.
import type { AdmittedApp } from "../auth/admission.ts";
import { DeleteResult } from "../http/envelopes.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { deleteRecordById } from "../writes/delete.ts";
import { crudDetail } from "./crud-docs.ts";
import { runRecordWrite } from "./record-write.ts";
import { memberWrite, pathsOf, writeParsers, type RouteDeps } from "./route-context.ts";
import { recordAnswer } from "./write-answers.ts";

export function deleteRoute(app: AdmittedApp, def: ResourceDefinition, deps: RouteDeps): void {
  app.delete(
    pathsOf(def).member,
    async ({ company, token, request, ctx, set, params }) =>
      runRecordWrite(deps, def, { company, token, request, ctx, set }, (shown) => ({
        operation: async (tx) =>
          deleteRecordById(tx, {
            ...(await memberWrite(tx.db, def, company, params, ctx)),
            shown,
          }),
        respond: (outcome) => recordAnswer(outcome),
        options: { takesBody: false },
      })),
    {
      detail: crudDetail(def, "delete", writeParsers),
      response: { 200: DeleteResult },
    },
  );
}
