// GET a report of a collection: its records, as its list's filters select them, counted and totalled in groups.
import type { AdmittedApp } from "../auth/admission.ts";
import { parseQuery } from "../http/query.ts";
import { readResponse } from "../http/respond.ts";
import { insufficientScope } from "../refusals/catalogue.ts";
import { reportFields, reportPlan, runReport } from "../resources/aggregates.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { readView } from "../resources/visibility.ts";
import { aggregateParsers, reportEnvelope } from "./aggregate-docs.ts";
import { crudDetail } from "./crud-docs.ts";
import { selectedBy } from "./list-parsers.ts";
import { pathsOf, scopeOf, type RouteDeps } from "./route-context.ts";

export function aggregateRoute(app: AdmittedApp, def: ResourceDefinition, deps: RouteDeps): void {
  const parsers = aggregateParsers(def);
  app.get(
    `${pathsOf(def).collection}/aggregate`,
    async ({ request, set, company, token, params }) => {
      const query = parseQuery(request.url, parsers);
      const plan = reportPlan(
        reportFields(def),
        (query.group_by as string[] | undefined) ?? [],
        (query.metrics as string[] | undefined) ?? [],
      );
      const scope = await scopeOf(deps.db, def, company, params);
      // A field the token does not see (docs/tokens.md) is neither grouped nor measured for it.
      const seen = new Set(readView(token.scopes).fields(def));
      if (plan.fields.some((field) => !seen.has(field)))
        throw insufficientScope([`${def.name}:sensitive`]);
      const rows = await runReport(deps.db, def, scope, plan, selectedBy(def, query));
      return readResponse({ request, set }, { data: rows, meta: { groups: rows.length } });
    },
    {
      detail: crudDetail(def, "aggregate", parsers),
      response: { 200: reportEnvelope(def) },
    },
  );
}
