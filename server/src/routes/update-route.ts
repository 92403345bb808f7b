// PATCH one member: merge the fields sent, under every rule of the resource.
import { updateResult } from "../http/envelopes.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { recordSchema } from "../resources/schemas.ts";
import { updateRecordById } from "../writes/update.ts";
import { crudDetail } from "./crud-docs.ts";
import { parseId, pathsOf, runWrite, scopeOf, writeParsers, type RouteDeps } from "./route-context.ts";
import type { ResourceApp } from "./resource-routes.ts";

export function updateRoute(app: ResourceApp, def: ResourceDefinition, deps: RouteDeps): void {
  const { member, memberParam } = pathsOf(def);
  app.patch(member, ({ request, company, params, body, ctx, set }) =>
    runWrite(deps, request, ctx, body, set, async (tx) => updateRecordById(tx, {
      def, company, body, dryRun: ctx.dryRun,
      id: parseId((params as Record<string, string>)[memberParam], def.singular.toLowerCase()),
      scope: await scopeOf(tx, def, company, params, true),
      ifMatch: request.headers.get("if-match"),
    })), {
    detail: crudDetail(def, "update", writeParsers),
    response: { 200: updateResult(recordSchema(def)) },
  });
}
