// DELETE one member: a soft delete, refused while protected history depends on it.
import type { AdmittedApp } from "../auth/admission.ts";
import { DeleteResult } from "../http/envelopes.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { deleteRecordById } from "../writes/delete.ts";
import { crudDetail } from "./crud-docs.ts";
import { parseId, pathsOf, runWrite, scopeOf, writeParsers, type RouteDeps } from "./route-context.ts";

export function deleteRoute(app: AdmittedApp, def: ResourceDefinition, deps: RouteDeps): void {
  const { member, memberParam } = pathsOf(def);
  app.delete(member, (call) =>
    runWrite(deps, call, async (tx) => deleteRecordById(tx, {
      def, company: call.company, dryRun: call.ctx.dryRun,
      id: parseId((call.params as Record<string, string>)[memberParam], def.singular.toLowerCase()),
      scope: await scopeOf(tx.db, def, call.company, call.params, true),
      ifMatch: call.ctx.ifMatch,
    }), { takesBody: false }), {
    detail: crudDetail(def, "delete", writeParsers),
    response: { 200: DeleteResult },
  });
}
