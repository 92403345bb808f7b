// The query parameters a list of a resource accepts, derived from its definition.
import { CUSTOM_SORT } from "../resources/custom-lists.ts";
import { afterIdParam, afterParam, limitParam, offsetParam, totalParam } from "../http/paging.ts";
import {
  anyOfParam,
  described,
  expandParam,
  documented,
  fieldListParam,
  flagParam,
  instantParam,
  integerParam,
  rangeParam,
  sortParam,
  textParam,
  type ParamParser,
  type Range,
} from "../http/query.ts";
import { invalidQuery } from "../refusals/catalogue.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import {
  equalityFilters,
  expandPaths,
  type FilterKind,
  hasTimestamps,
  rangeFields,
  readableFieldNames,
  sensitiveFieldNames,
  sortableFieldNames,
  uniqueFields,
} from "../resources/fields.ts";
import { isCaseless } from "../resources/caseless.ts";
import { sensitiveScope } from "../resources/scopes.ts";
import type { FilterValue, ListCriteria, ListFilters } from "../resources/lists.ts";
import type { Shown } from "../resources/shown.ts";
import { hasSoftDelete } from "../resources/store.ts";

export function fieldsParser(def: ResourceDefinition): ParamParser<string[]> {
  return described(
    fieldListParam(readableFieldNames(def)),
    "Fields to return, repeated (`fields=name&fields=status`) or comma-separated " +
      "(`fields=name,status`); `id` is always included. An unknown field is a 400.",
  );
}

const CURRENCY = /^[A-Za-z]{3}$/;

/** How a text filter compares, by how its field's values are unique. */
function textMatch(name: string, unique: "exact" | "caseless" | false): string {
  if (unique === "caseless")
    return `Only the record whose ${name} is this, ignoring case and surrounding spaces (accents count).`;
  return unique
    ? `Only records whose ${name} is exactly this: case and accents count, trailing spaces do not.`
    : `Only records whose ${name} is this, in any case.`;
}

/** The parser of one equality filter, by the kind of field it compares. */
function filterParser(
  name: string,
  filter: FilterKind,
  unique: "exact" | "caseless" | false,
): ParamParser<unknown> {
  switch (filter.kind) {
    case "enum":
      return anyOfParam(filter.values);
    case "id":
      return described(integerParam(1), `Only records whose ${name} is this id.`);
    case "boolean":
      return described(flagParam, `Only records whose ${name} is this.`);
    case "text":
      // Unique values compare exactly (db/schema.ts); other text as its column's collation does.
      return described(textParam, textMatch(name, unique));
    case "currency":
      return documented(
        (value, param) => {
          const codes = value.split(",").map((code) => code.trim().toUpperCase());
          if (!codes.every((code) => CURRENCY.test(code)))
            throw invalidQuery(
              `"${param}" must be ISO 4217 codes (USD, or USD,EUR for any of them), not "${value}".`,
            );
          return codes;
        },
        {
          schema: {
            type: "array",
            items: { type: "string", pattern: "^[A-Za-z]{3}$" },
            minItems: 1,
          },
          style: "form",
          explode: false,
          description: `Only records in one of these ISO 4217 currencies (comma-separated, any case).`,
        },
      );
  }
}

/** `expand`, on a definition whose records have references: what GET one and lists may embed. */
export function expandParsers(def: ResourceDefinition): Record<string, ParamParser<unknown>> {
  const paths = expandPaths(def);
  if (paths.length === 0) return {};
  return {
    expand: described(
      expandParam(paths),
      "References to embed, comma-separated: each becomes the whole record it names (`client` " +
        "for `client_id`; null when empty; a deleted one as `{id, deleted: true}`), and " +
        "`project.client` embeds the project's client too (two levels at most). A page reads " +
        "each reference once, whatever its size. Embedding needs the read scope of every " +
        "resource the path embeds: without it, 403 insufficient_scope naming it.",
    ),
  };
}

/** What sorting by a sensitive field needs, when the definition has one. */
function sortsHidden(def: ResourceDefinition): string {
  const hidden = sensitiveFieldNames(def);
  return hidden.length === 0
    ? ""
    : ` Sorting by ${hidden.join(", ")} needs the ${sensitiveScope(def)} scope (403 insufficient_scope without it).`;
}

/** A filter on a sensitive field says so: a token without its scope is refused (403). */
function sensitiveParam(
  def: ResourceDefinition,
  name: string,
  parser: ParamParser<unknown>,
): ParamParser<unknown> {
  if (!sensitiveFieldNames(def).includes(name)) return parser;
  return described(
    parser,
    `${parser.doc.description ?? ""} Needs the ${sensitiveScope(def)} scope (403 insufficient_scope without it).`.trim(),
  );
}

export function listParsers(def: ResourceDefinition): Record<string, ParamParser<unknown>> {
  const parsers: Record<string, ParamParser<unknown>> = {
    limit: limitParam,
    offset: offsetParam,
    after_id: afterIdParam,
    after: afterParam,
    total: totalParam,
    fields: fieldsParser(def),
    ...expandParsers(def),
    sort: described(
      sortParam(
        sortableFieldNames(def),
        Object.hasOwn(def.table, "custom_fields") ? CUSTOM_SORT : undefined,
      ),
      "Order: comma-separated fields, `-` before a field for descending " +
        "(`sort=name,-created_at`); `id` breaks ties in the direction of the last field. " +
        "Without it, id ascending. NULL sorts first ascending, last descending. Page a " +
        "sorted list with offset, or with after set to each page's meta.next_cursor." +
        (Object.hasOwn(def.table, "custom_fields")
          ? " `sort=cf.<key>` (or `-cf.<key>`) orders by one of your custom fields, alone."
          : "") +
        sortsHidden(def),
    ),
  };
  Object.assign(parsers, filterParsers(def));
  if (hasSoftDelete(def.table))
    parsers.include_deleted = described(
      flagParam,
      "`true` lists deleted records too, each with `deleted_at` (null for live records), for a " +
        "full or incremental resync.",
    );
  return parsers;
}

/** The parameters that select which records a list (and a report of them) covers: q, equality filters, ranges, updated_since. */
export function filterParsers(def: ResourceDefinition): Record<string, ParamParser<unknown>> {
  const parsers: Record<string, ParamParser<unknown>> = {};
  const hidden = sensitiveFieldNames(def);
  const searched = def.search.filter((name) => hidden.includes(name));
  if (def.search.length > 0)
    parsers.q = described(
      textParam,
      `Case-insensitive substring of ${def.search.join(", ")}; % and _ match themselves.` +
        (searched.length > 0
          ? ` ${searched.join(", ")} only for a token with the ${sensitiveScope(def)} scope.`
          : ""),
    );
  for (const [name, filter] of equalityFilters(def)) {
    const unique =
      uniqueFields(def).includes(name) && (isCaseless(def.fields[name]) ? "caseless" : "exact");
    parsers[name] = sensitiveParam(def, name, filterParser(name, filter, unique));
  }
  for (const [name, kind] of rangeFields(def))
    parsers[name] = sensitiveParam(
      def,
      name,
      described(
        rangeParam(kind),
        `A range of ${name}: ${name}[gte]=, ${name}[gt]=, ${name}[lt]=, ${name}[lte]= (any of ` +
          `them, together: all ` +
          `hold).${kind === "timestamp" ? " A date means its midnight UTC." : ""}`,
      ),
    );
  if (hasTimestamps(def))
    parsers.updated_since = described(
      instantParam,
      "Only records changed at or after this moment (an RFC 3339 date-time, or a date: its " +
        "midnight UTC): an incremental resync. Pair with include_deleted=true to learn of " +
        "deletes too.",
    );
  return parsers;
}

/** The records a parsed query selects (filterParsers' parameters), as lists and reports read them. */
export function selectedBy(def: ResourceDefinition, query: Record<string, unknown>): ListFilters {
  const given = <T>(names: readonly string[]): Record<string, T> =>
    Object.fromEntries(
      names.filter((name) => query[name] !== undefined).map((name) => [name, query[name] as T]),
    );
  return {
    filters: given<FilterValue>(equalityFilters(def).map(([name]) => name)),
    ranges: given<Range>(rangeFields(def).map(([name]) => name)),
    q: query.q as string | undefined,
    updatedSince: query.updated_since as Date | undefined,
  };
}

/**
 * The records a parsed query selects (selectedBy, with its custom-field criteria) as the token of
 * `shown` may select them: a filter, range or sort on a field it does not see would tell the
 * field's values (403), and its `q` searches only the fields it sees.
 */
export function selectedFor(
  shown: Shown,
  def: ResourceDefinition,
  query: Record<string, unknown>,
  custom: ListCriteria["custom"],
  sort: readonly { field: string }[] = [],
): ListFilters {
  const selected = selectedBy(def, query);
  shown.refuseNamed([
    ...Object.keys(selected.filters),
    ...Object.keys(selected.ranges ?? {}),
    ...sort.map((key) => key.field),
    ...(custom?.filters ?? []).map((filter) => `custom_fields.${filter.field.key}`),
    ...(custom?.sort ? [`custom_fields.${custom.sort.key}`] : []),
  ]);
  return {
    ...selected,
    ...(custom ? { custom } : {}),
    ...(shown.hides ? { search: shown.visible(def.search) } : {}),
  };
}
