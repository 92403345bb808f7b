// POST to a collection: create a record (201), or preview it (200 in a dry-run).
import type { AdmittedApp } from "../auth/admission.ts";
import { createdOrPreviewed, createdResult } from "../http/envelopes.ts";
import { recordSchema } from "../resources/schemas.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { createRecord } from "../writes/create.ts";
import { crudDetail } from "./crud-docs.ts";
import { runRecordWrite, writingShown } from "./record-write.ts";
import { pathsOf, scopeOf, writeParsers, type RouteDeps } from "./route-context.ts";
import { recordAnswer } from "./write-answers.ts";

export function createRoute(app: AdmittedApp, def: ResourceDefinition, deps: RouteDeps): void {
  app.post(
    pathsOf(def).collection,
    async ({ company, token, request, ctx, set, params }) =>
      runRecordWrite(deps, def, { company, token, request, ctx, set }, (shown) => ({
        operation: async (tx, body) =>
          createRecord(tx, deps.store, {
            def,
            company,
            body,
            dryRun: ctx.dryRun,
            scope: await scopeOf(tx.db, def, company, params, true),
          }),
        respond: (outcome) =>
          recordAnswer(outcome, {
            collection: new URL(request.url).pathname,
            representation: ctx.representation,
            shown,
          }),
        options: writingShown(shown),
      })),
    {
      detail: crudDetail(def, "create", writeParsers),
      response: createdOrPreviewed(createdResult(recordSchema(def))),
    },
  );
}
