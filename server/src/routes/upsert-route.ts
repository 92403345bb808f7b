// PUT /v1/{resource}/by-external-id/{external_id}: create or update the record the client knows by its own id.
import type { AdmittedApp } from "../auth/admission.ts";
import { createdOrPreviewed, upsertResult } from "../http/envelopes.ts";
import { invalidPathExternalId } from "../refusals/catalogue.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { recordSchema } from "../resources/schemas.ts";
import { validateBody } from "../resources/validation.ts";
import { upsertByExternalId } from "../writes/upsert.ts";
import { crudDetail } from "./crud-docs.ts";
import { runRecordWrite, writingShown } from "./record-write.ts";
import { pathsOf, writeParsers, type RouteDeps } from "./route-context.ts";
import { recordAnswer } from "./write-answers.ts";

/**
 * The path's external id, percent-decoded exactly once from the URL as sent (not Elysia's decoded
 * parameter, which turns a malformed escape into ""), and held to the rules of the field.
 */
function externalIdOf(def: ResourceDefinition, request: Request): string {
  const { pathname } = new URL(request.url);
  let externalId: string;
  try {
    externalId = decodeURIComponent(pathname.slice(pathname.lastIndexOf("/") + 1));
  } catch {
    throw invalidPathExternalId([
      {
        field: "external_id",
        code: "invalid_text",
        message:
          "The external id in the path is not percent-encoded UTF-8 text: encode it once, e.g. " +
          "with encodeURIComponent (the id 100% is sent as 100%25).",
      },
    ]);
  }
  const { errors } = validateBody(def, { external_id: externalId }, true);
  if (errors.length > 0) throw invalidPathExternalId(errors);
  return externalId;
}

export function upsertRoute(app: AdmittedApp, def: ResourceDefinition, deps: RouteDeps): void {
  const { collection } = pathsOf(def);
  app.put(
    `${collection}/by-external-id/:external_id`,
    async ({ company, token, request, ctx, set }) =>
      runRecordWrite(deps, def, { company, token, request, ctx, set }, (shown) => ({
        operation: (tx, body) =>
          upsertByExternalId(tx, deps.store, {
            def,
            company,
            body,
            dryRun: ctx.dryRun,
            externalId: externalIdOf(def, request),
            scope: { companyId: company.id },
            ifMatch: ctx.ifMatch,
            shown,
          }),
        respond: (outcome) =>
          recordAnswer(outcome, {
            collection,
            representation: ctx.representation,
            upsert: true,
            shown,
          }),
        options: writingShown(shown),
      })),
    {
      detail: crudDetail(def, "upsert", writeParsers),
      // Created (201), updated or previewed (200): one schema, as for a create.
      response: createdOrPreviewed(upsertResult(recordSchema(def))),
    },
  );
}
