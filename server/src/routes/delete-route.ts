// DELETE one member: a soft delete, refused while protected history depends on it.
import { DeleteResult } from "../http/envelopes.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { deleteRecordById } from "../writes/delete.ts";
import { crudDetail } from "./crud-docs.ts";
import { parseId, pathsOf, runWrite, scopeOf, writeParsers, type RouteDeps } from "./route-context.ts";
import type { ResourceApp } from "./resource-routes.ts";

export function deleteRoute(app: ResourceApp, def: ResourceDefinition, deps: RouteDeps): void {
  const { member, memberParam } = pathsOf(def);
  app.delete(member, ({ request, company, params, ctx, set }) =>
    runWrite(deps, request, ctx, undefined, set, async (tx) => deleteRecordById(tx, {
      def, company, dryRun: ctx.dryRun,
      id: parseId((params as Record<string, string>)[memberParam], def.singular.toLowerCase()),
      scope: await scopeOf(tx, def, company, params, true),
      ifMatch: request.headers.get("if-match"),
    })), {
    detail: crudDetail(def, "delete", writeParsers),
    response: { 200: DeleteResult },
  });
}
