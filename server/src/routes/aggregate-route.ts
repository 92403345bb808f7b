// GET a report of a collection: its records, as its list's filters select them, counted and totalled in groups.
import type { AdmittedApp } from "../auth/admission.ts";
import { parseQuery } from "../http/query.ts";
import { readResponse } from "../http/respond.ts";
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
      // A field the token does not see (docs/tokens.md) is neither grouped, measured nor filtered
      // on for it, and its search leaves such fields out, as the list's does.
      const shown = await readView(token.scopes).of(def, company.id, deps.db);
      const selected = selectedBy(def, query);
      shown.refuseNamed([
        ...plan.fields,
        ...Object.keys(selected.filters),
        ...Object.keys(selected.ranges ?? {}),
      ]);
      const search = shown.hides ? shown.visible(def.search) : undefined;
      const rows = await runReport(deps.db, def, scope, plan, { ...selected, search });
      return readResponse({ request, set }, { data: rows, meta: { groups: rows.length } });
    },
    {
      detail: crudDetail(def, "aggregate", parsers),
      response: { 200: reportEnvelope(def) },
    },
  );
}
