// The list filters shared by `<resource> list` and `export`: --status, --q and the resource's own id filters.
import type { Command } from "commander";
import { flagOf, type ResourceSpec } from "../../resources.ts";
import { parseFields, parseId } from "../../parsers.ts";

export function addFilterOptions(command: Command, spec: ResourceSpec): void {
  command.option("--fields <a,b>", "only these fields (plus id)", parseFields);
  if (spec.kind === "lookup") return;
  command
    .option("--status <status>", "only records in this status (case-insensitive)")
    .option("--q <text>", "case-insensitive substring search");
  for (const filter of spec.filters)
    command.option(`${flagOf(filter)} <id>`, `only records with this ${filter}`, parseId);
}

/** The API query for the filter options given; unset ones are left out. */
export function filterQuery(
  spec: ResourceSpec,
  options: Record<string, unknown>,
): Record<string, unknown> {
  const query: Record<string, unknown> = {
    status: options.status,
    q: options.q,
    fields: options.fields,
  };
  // commander camel-cases `--client-id` to `clientId`.
  for (const filter of spec.filters)
    query[filter] = options[filter.replace(/_(\w)/g, (_, c: string) => c.toUpperCase())];
  return query;
}
