// PUT /v1/{resource}/by-external-id/{external_id}: create or update the record the client knows by its own id.
import { t } from "elysia";
import { CreatedResult, DryRunCreatedResult, updateResult } from "../http/envelopes.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { recordSchema } from "../resources/schemas.ts";
import { upsertByExternalId } from "../writes/upsert.ts";
import { crudDetail } from "./crud-docs.ts";
import { pathsOf, runWrite, writeParsers, type RouteDeps } from "./route-context.ts";
import type { ResourceApp } from "./resource-routes.ts";

export function upsertRoute(app: ResourceApp, def: ResourceDefinition, deps: RouteDeps): void {
  const { collection } = pathsOf(def);
  app.put(`${collection}/by-external-id/:external_id`, ({ request, company, params, body, ctx, set }) =>
    runWrite(deps, request, ctx, body, set, (tx) => upsertByExternalId(tx, {
      def, company, body, dryRun: ctx.dryRun,
      externalId: decodeURIComponent((params as Record<string, string>).external_id ?? ""),
      scope: { companyId: company.id },
      ifMatch: request.headers.get("if-match"),
      location: (id) => `${collection}/${id}`,
    })), {
    detail: crudDetail(def, "upsert", writeParsers),
    // A dry-run answers 200 with the preview of a create (DryRunCreated) or of an update.
    response: { 201: CreatedResult, 200: t.Union([updateResult(recordSchema(def)), DryRunCreatedResult]) },
  });
}
