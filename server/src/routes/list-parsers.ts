// The query parameters a list of a resource accepts, derived from its definition.
import { limitParam, offsetParam } from "../http/paging.ts";
import { described, enumParam, fieldListParam, integerParam, textParam, type ParamParser } from "../http/query.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { readableFieldNames } from "../resources/fields.ts";

export function fieldsParser(def: ResourceDefinition): ParamParser<string[]> {
  return described(fieldListParam(readableFieldNames(def)), "Comma-separated fields to return; `id` is always included. An unknown field is a 400.");
}

export function listParsers(def: ResourceDefinition): Record<string, ParamParser<unknown>> {
  const parsers: Record<string, ParamParser<unknown>> = { limit: limitParam, offset: offsetParam, fields: fieldsParser(def) };
  if (def.search.length > 0) parsers.q = described(textParam, `Case-insensitive substring of ${def.search.join(", ")}; % and _ match themselves.`);
  if (def.status) parsers.status = enumParam(def.status.values);
  for (const filter of def.filters) parsers[filter] = described(integerParam(1), `Only records whose ${filter} is this id.`);
  return parsers;
}
