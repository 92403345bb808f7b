// GET one member: the record, or only the fields asked for.
import type { AdmittedApp } from "../auth/admission.ts";
import { itemEnvelope } from "../http/envelopes.ts";
import { notFound } from "../refusals/catalogue.ts";
import { parseQuery } from "../http/query.ts";
import { readResponse } from "../http/respond.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { readView } from "../resources/visibility.ts";
import { recordSchema } from "../resources/schemas.ts";
import { showRecords } from "../resources/custom-fields.ts";
import { findRecord } from "../resources/store.ts";
import { crudDetail } from "./crud-docs.ts";
import { embedShown, withReferences } from "./expand-records.ts";
import { expandParsers, fieldsParser } from "./list-parsers.ts";
import { memberIdOf, pathsOf, scopeOf, type RouteDeps } from "./route-context.ts";

export function getRoute(app: AdmittedApp, def: ResourceDefinition, deps: RouteDeps): void {
  const parsers = { fields: fieldsParser(def), ...expandParsers(def) };
  const { member } = pathsOf(def);
  const what = def.singular.toLowerCase();
  app.get(
    member,
    async ({ request, set, company, token, params }) => {
      const query = parseQuery(request.url, parsers);
      const scoped = scopeOf(deps.db, def, company, params);
      const scope = scoped instanceof Promise ? await scoped : scoped;
      const id = memberIdOf(def, params);
      const expand = (query as { expand?: string[][] }).expand;
      const found = await findRecord(deps.db, def, scope, id, {
        fields: query.fields && expand ? withReferences(def, query.fields, expand) : query.fields,
      });
      if (!found) throw notFound(what, id);
      await showRecords(deps.db, company.id, def, [found]);
      const view = readView(token.scopes);
      (await view.of(def, company.id, deps.db)).strip([found]);
      if (expand) await embedShown(deps.db, def, company.id, [found], expand, query.fields, view);
      return readResponse(
        { request, set },
        { data: found },
        { sparse: query.fields !== undefined, untimed: view.untimed },
      );
    },
    {
      detail: crudDetail(def, "get", parsers),
      response: { 200: itemEnvelope(recordSchema(def), `${def.singular}Item`) },
    },
  );
}
