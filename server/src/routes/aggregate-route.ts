// GET a report of a collection: its records, as its list's filters select them, counted and totalled in groups.
import type { AdmittedApp } from "../auth/admission.ts";
import { parseQuery } from "../http/query.ts";
import { readResponse } from "../http/respond.ts";
import { reportFields, reportPlan, runReport, withCustomFields } from "../resources/aggregates.ts";
import { customFieldsForReads, fieldsOfResource } from "../resources/custom-fields.ts";
import { isCustomParam } from "../resources/custom-lists.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { readView } from "../resources/visibility.ts";
import { aggregateParsers, reportEnvelope } from "./aggregate-docs.ts";
import { crudDetail } from "./crud-docs.ts";
import { customCriteria } from "./custom-criteria.ts";
import { selectedFor } from "./list-parsers.ts";
import { pathsOf, scopeOf, type RouteDeps } from "./route-context.ts";

export function aggregateRoute(app: AdmittedApp, def: ResourceDefinition, deps: RouteDeps): void {
  const parsers = aggregateParsers(def);
  const hasCustomFields = Object.hasOwn(def.table, "custom_fields");
  app.get(
    `${pathsOf(def).collection}/aggregate`,
    async ({ request, set, company, token, params }) => {
      const query = parseQuery(request.url, parsers, hasCustomFields ? isCustomParam : undefined);
      const groupBy = (query.group_by as string[] | undefined) ?? [];
      const metrics = (query.metrics as string[] | undefined) ?? [];
      // The company's own fields join the report's vocabulary when it names one (`cf.<key>`).
      const own =
        hasCustomFields && [...groupBy, ...metrics].some((name) => name.includes("cf."))
          ? fieldsOfResource(await customFieldsForReads(deps.db, company.id), def.name)
          : [];
      const plan = reportPlan(withCustomFields(def, reportFields(def), own), groupBy, metrics);
      const custom = hasCustomFields
        ? await customCriteria(deps, company.id, def, request.url, undefined)
        : undefined;
      const scope = await scopeOf(deps.db, def, company, params);
      // A field the token does not see (docs/tokens.md) is neither grouped nor measured for it,
      // nor filtered on (selectedFor, as the list).
      const shown = await readView(token.scopes).of(def, company.id, deps.db);
      shown.refuseNamed(plan.fields);
      const selected = selectedFor(shown, def, query, custom);
      const rows = await runReport(deps.db, def, scope, plan, selected);
      return readResponse({ request, set }, { data: rows, meta: { groups: rows.length } });
    },
    {
      detail: crudDetail(def, "aggregate", parsers),
      response: { 200: reportEnvelope(def) },
    },
  );
}
