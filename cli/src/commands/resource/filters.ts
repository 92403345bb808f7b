// The list filters shared by `<resource> list` and `export`: --status, --q, the resource's own id
// filters, ranges, --sort and --expand.
import type { Command } from "commander";
import { flagOf, type ResourceSpec } from "../../resources.ts";
import { parseFields, parseId, parseRange } from "../../parsers.ts";

export function addFilterOptions(command: Command, spec: ResourceSpec): void {
  command
    .option("--fields <a,b>", "only these fields (plus id)", parseFields)
    .option(
      "--sort <a,-b>",
      "order by these fields, - for descending (e.g. name,-created_at); id breaks ties",
      parseFields,
    );
  if (spec.kind === "lookup") return;
  command
    .option(
      "--expand <a,b>",
      "embed the records these references name (client, project.client, …)",
      parseFields,
    )
    .option(
      "--range <field[op]=value>",
      "a range on a date, money or timestamp field, op one of gte, gt, lt, lte (repeatable), " +
        "e.g. hired_on[gte]=2024-01-01",
      parseRange,
    );
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
    sort: options.sort,
    expand: options.expand,
    ...(options.range as Record<string, unknown> | undefined),
  };
  // commander camel-cases `--client-id` to `clientId`.
  for (const filter of spec.filters)
    query[filter] = options[filter.replace(/_(\w)/g, (_, c: string) => c.toUpperCase())];
  return query;
}
