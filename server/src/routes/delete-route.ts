// DELETE one member: a soft delete, refused while protected history depends on it.
import type { AdmittedApp } from "../auth/admission.ts";
import { DeleteResult } from "../http/envelopes.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { readView } from "../resources/visibility.ts";
import { deleteRecordById } from "../writes/delete.ts";
import { crudDetail } from "./crud-docs.ts";
import { memberWrite, pathsOf, runWrite, writeParsers, type RouteDeps } from "./route-context.ts";
import { recordAnswer } from "./write-answers.ts";

export function deleteRoute(app: AdmittedApp, def: ResourceDefinition, deps: RouteDeps): void {
  app.delete(
    pathsOf(def).member,
    async ({ company, token, request, ctx, set, params }) => {
      const shown = await readView(token.scopes).of(def, company.id, deps.db);
      return runWrite(
        deps,
        { company, request, ctx, set },
        async (tx) =>
          deleteRecordById(tx, {
            ...(await memberWrite(tx.db, def, company, params, ctx)),
            shown,
          }),
        (outcome) => recordAnswer(outcome),
        { takesBody: false },
      );
    },
    {
      detail: crudDetail(def, "delete", writeParsers),
      response: { 200: DeleteResult },
    },
  );
}
