// The custom-field filters (`cf.<key>=`, ranges) and sort (`sort=cf.<key>`) of a list's or a report's
// query, read against the company's own fields of the resource.
import type { SortKey } from "../http/query.ts";
import { searchParamsOf } from "../http/query.ts";
import { invalidQuery } from "../refusals/catalogue.ts";
import { customFieldsForReads, fieldsOfResource } from "../resources/custom-fields.ts";
import { CUSTOM_SORT, customFilters, isCustomParam } from "../resources/custom-lists.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import type { ListCriteria } from "../resources/lists.ts";
import type { RouteDeps } from "./route-context.ts";

/**
 * The custom-field filters and sort of a list's query, read against the company's fields of the
 * resource (400 for a key it does not have); undefined when the query names none.
 */
export async function customCriteria(
  deps: RouteDeps,
  companyId: number,
  def: ResourceDefinition,
  url: string,
  sort: readonly SortKey[] | undefined,
): Promise<ListCriteria["custom"]> {
  const params = searchParamsOf(url);
  const sorted = sort?.find((key) => CUSTOM_SORT.test(key.field));
  const named = [...(params?.keys() ?? [])].some(isCustomParam);
  if (!sorted && !named) return undefined;
  const fields = Object.hasOwn(def.table, "custom_fields")
    ? fieldsOfResource(await customFieldsForReads(deps.db, companyId), def.name)
    : [];
  const filters = customFilters(params, fields);
  if (!sorted) return { filters };
  const field = fields.find((one) => `cf.${one.key}` === sorted.field);
  if (!field)
    throw invalidQuery(
      `"sort" names ${sorted.field}, which is no custom field of ${def.name}` +
        `${fields.length ? `; its custom fields are ${fields.map((one) => `cf.${one.key}`).join(", ")}` : ""}.`,
    );
  if (sort!.length > 1)
    throw invalidQuery(
      `"sort=${sorted.field}" orders by that custom field alone (id breaks ties).`,
    );
  return { filters, sort: field };
}
