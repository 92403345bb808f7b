// GET a collection: one page of live records, filtered, with the total.
import { listEnvelope } from "../http/envelopes.ts";
import { pageWindow } from "../http/paging.ts";
import { parseQuery } from "../http/query.ts";
import { readResponse } from "../http/respond.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { readableFieldNames } from "../resources/fields.ts";
import { recordSchema } from "../resources/schemas.ts";
import { listRecords } from "../resources/store.ts";
import { crudDetail } from "./crud-docs.ts";
import { listParsers } from "./list-parsers.ts";
import { pathsOf, scopeOf, type RouteDeps } from "./route-context.ts";
import type { ResourceApp } from "./resource-routes.ts";

export function listRoute(app: ResourceApp, def: ResourceDefinition, deps: RouteDeps): void {
  const parsers = listParsers(def);
  app.get(pathsOf(def).collection, async ({ request, company, params }) => {
    const query = parseQuery(new URL(request.url), parsers);
    const { limit, offset } = pageWindow(query);
    const filters = Object.fromEntries(def.filters.filter((name) => query[name] !== undefined).map((name) => [name, query[name] as number | string]));
    const scope = await scopeOf(deps.db, def, company, params);
    const { rows, total } = await listRecords(deps.db, def, scope, {
      limit, offset, filters,
      q: query.q as string | undefined,
      status: query.status as string | undefined,
      fields: (query.fields as string[] | undefined) ?? readableFieldNames(def),
      updatedSince: query.updated_since as Date | undefined,
      includeDeleted: query.include_deleted as boolean | undefined,
    });
    return readResponse(request, { data: rows, meta: { total, limit, offset } }, { sparse: query.fields !== undefined });
  }, {
    detail: crudDetail(def, "list", parsers),
    response: { 200: listEnvelope(recordSchema(def), `${def.singular}List`) },
  });
}
