// The query parameters a list of a resource accepts, derived from its definition.
import { afterIdParam, afterParam, limitParam, offsetParam, totalParam } from "../http/paging.ts";
import {
  described,
  enumParam,
  fieldListParam,
  flagParam,
  integerParam,
  sortParam,
  textParam,
  timestampParam,
  type ParamParser,
} from "../http/query.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { hasTimestamps, readableFieldNames, sortableFieldNames } from "../resources/fields.ts";
import { hasSoftDelete } from "../resources/store.ts";

export function fieldsParser(def: ResourceDefinition): ParamParser<string[]> {
  return described(
    fieldListParam(readableFieldNames(def)),
    "Fields to return, repeated (`fields=name&fields=status`) or comma-separated (`fields=name,status`); `id` is always included. An unknown field is a 400.",
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
    sort: described(
      sortParam(sortableFieldNames(def)),
      "Order: comma-separated fields, `-` before a field for descending (`sort=name,-created_at`); `id` breaks ties in the direction of the last field. Without it, id ascending. NULL sorts first ascending, last descending. Page a sorted list with offset, or with after set to each page's meta.next_cursor.",
    ),
  };
  if (def.search.length > 0)
    parsers.q = described(
      textParam,
      `Case-insensitive substring of ${def.search.join(", ")}; % and _ match themselves.`,
    );
  if (def.status) parsers.status = enumParam(def.status.values);
  for (const filter of def.filters) {
    parsers[filter] =
      def.fields[filter]?.type === "text"
        ? described(
            textParam,
            `Only records whose ${filter} is exactly this: case and accents count, trailing spaces do not.`,
          )
        : described(integerParam(1), `Only records whose ${filter} is this id.`);
  }
  if (hasTimestamps(def))
    parsers.updated_since = described(
      timestampParam,
      "Only records changed at or after this moment (RFC 3339): an incremental resync. Pair with include_deleted=true to learn of deletes too.",
    );
  if (hasSoftDelete(def.table))
    parsers.include_deleted = described(
      flagParam,
      "`true` lists deleted records too, each with `deleted_at` (null for live records), for a full or incremental resync.",
    );
  return parsers;
}
