// PATCH one member: merge the fields sent, under every rule of the resource.
import type { AdmittedApp } from "../auth/admission.ts";
import { updateResult } from "../http/envelopes.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { readView } from "../resources/visibility.ts";
import { recordSchema } from "../resources/schemas.ts";
import { updateRecordById } from "../writes/update.ts";
import { crudDetail } from "./crud-docs.ts";
import { memberWrite, pathsOf, runWrite, writeParsers, type RouteDeps } from "./route-context.ts";
import { recordAnswer } from "./write-answers.ts";

export function updateRoute(app: AdmittedApp, def: ResourceDefinition, deps: RouteDeps): void {
  const { member } = pathsOf(def);
  app.patch(
    member,
    async ({ company, token, request, ctx, set, params }) => {
      const shown = await readView(token.scopes).of(def, company.id, deps.db);
      return runWrite(
        deps,
        { company, request, ctx, set },
        async (tx, body) =>
          updateRecordById(tx, deps.store, {
            ...(await memberWrite(tx.db, def, company, params, ctx)),
            body,
            shown,
          }),
        (outcome) => recordAnswer(outcome, { shown }),
        { allowed: (body) => shown.refuseWritten(body), hidden: shown.hidden },
      );
    },
    {
      detail: crudDetail(def, "update", writeParsers),
      response: { 200: updateResult(recordSchema(def)) },
    },
  );
}
