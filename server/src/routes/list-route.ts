// GET a collection: one page of live records, filtered, by offset or after_id, with the total unless asked not to.
import type { AdmittedApp } from "../auth/admission.ts";
import { listEnvelope } from "../http/envelopes.ts";
import { encodeCursor, listFingerprint, listWindow } from "../http/paging.ts";
import type { SortKey } from "../http/query.ts";
import { parseQuery, searchParamsOf } from "../http/query.ts";
import { customFingerprint, isCustomParam } from "../resources/custom-lists.ts";
import { readResponse } from "../http/respond.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { readView } from "../resources/visibility.ts";
import { showRecords } from "../resources/custom-fields.ts";
import { readableFieldNames } from "../resources/fields.ts";
import { recordSchema } from "../resources/schemas.ts";
import { listRecords, sortValuesFit } from "../resources/lists.ts";
import { crudDetail } from "./crud-docs.ts";
import { embedShown, withReferences } from "./expand-records.ts";
import { listParsers, selectedFor } from "./list-parsers.ts";
import { customCriteria } from "./custom-criteria.ts";
import { pathsOf, scopeOf, type RouteDeps } from "./route-context.ts";

export function listRoute(app: AdmittedApp, def: ResourceDefinition, deps: RouteDeps): void {
  const parsers = listParsers(def);
  app.get(
    pathsOf(def).collection,
    async ({ request, set, company, token, params }) => {
      const query = parseQuery(request.url, parsers, isCustomParam);
      const sort = query.sort as SortKey[] | undefined;
      const view = readView(token.scopes);
      const shown = await view.of(def, company.id, deps.db);
      const custom = await customCriteria(deps, company.id, def, request.url, sort);
      const fingerprint = listFingerprint(
        custom ? { ...query, cf: customFingerprint(searchParamsOf(request.url)) } : query,
        company.id,
      );
      const { limit, start } = listWindow(query, {
        fingerprint,
        keys: sort?.length ?? 0,
        fits: sortValuesFit(def, sort ?? [], custom?.sort),
      });
      const selected = selectedFor(shown, def, query, custom, sort);
      const fields = query.fields as string[] | undefined;
      const expand = query.expand as string[][] | undefined;
      const scope = await scopeOf(deps.db, def, company, params);
      const page = await listRecords(deps.db, def, scope, {
        ...selected,
        limit,
        start,
        total: query.total !== false,
        fields:
          fields && expand
            ? withReferences(def, fields, expand)
            : (fields ?? readableFieldNames(def)),
        includeDeleted: query.include_deleted as boolean | undefined,
        sort,
      });
      await showRecords(deps.db, company.id, def, page.rows);
      shown.strip(page.rows);
      if (expand) await embedShown(deps.db, def, company.id, page.rows, expand, fields, view);
      const meta = {
        ...(page.total === undefined ? {} : { total: page.total }),
        limit,
        ...("afterId" in start
          ? {
              after_id: start.afterId,
              ...(page.nextAfterId === undefined ? {} : { next_after_id: page.nextAfterId }),
            }
          : "offset" in start
            ? { offset: start.offset }
            : {}),
        ...(page.next === undefined ? {} : { next_cursor: encodeCursor(fingerprint, page.next) }),
      };
      return readResponse(
        { request, set },
        { data: page.rows, meta },
        { sparse: query.fields !== undefined, untimed: view.untimed },
      );
    },
    {
      detail: crudDetail(def, "list", parsers),
      response: { 200: listEnvelope(recordSchema(def), `${def.singular}List`) },
    },
  );
}
