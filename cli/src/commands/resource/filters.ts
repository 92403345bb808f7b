// The list filters shared by `<resource> list`, `export` and `aggregate`: --status, --q, the
// resource's own id filters, its ranges (`--hired-on-gte 2024-01-01`); lists also --sort and --expand.
import type { Command } from "commander";
import { flagOf, type ResourceSpec } from "../../resources.ts";
import { parseFields, parseId } from "../../parsers.ts";

/** A range's bounds, each a flag of its own: `--hired-on-gte`, and what it keeps. */
const BOUNDS = { gte: "≥", gt: ">", lt: "<", lte: "≤" } as const;
type Bound = keyof typeof BOUNDS;

/** commander's name of a flag's value: `--hired-on-gte` → `hiredOnGte`. */
const camel = (words: string): string => words.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());

export function addFilterOptions(command: Command, spec: ResourceSpec): void {
  command
    .option("--fields <a,b>", "only these fields (plus id)", parseFields)
    .option(
      "--sort <a,-b>",
      "order by these fields, - for descending (e.g. name,-created_at); id breaks ties",
      parseFields,
    );
  // A lookup's records (a trade) name nothing to embed.
  if (spec.kind === "records")
    command.option(
      "--expand <a,b>",
      "embed the records these references name (client, project.client, …)",
      parseFields,
    );
  addSelectionOptions(command, spec);
}

/** The options that select records (status, q, id filters, ranges): a list's and a report's. */
export function addSelectionOptions(command: Command, spec: ResourceSpec): void {
  for (const field of spec.ranges)
    for (const [bound, sign] of Object.entries(BOUNDS))
      command.option(
        `${flagOf(`${field}_${bound}`)} <value>`,
        `only records whose ${field} is ${sign} this`,
      );
  if (spec.fields.update.status)
    command.option("--status <status>", "only records in this status (case-insensitive)");
  command.option("--q <text>", "case-insensitive substring search");
  for (const filter of spec.filters)
    command.option(`${flagOf(filter)} <id>`, `only records with this ${filter}`, parseId);
}

/** The API query for the filter options given; unset ones are left out. */
export function filterQuery(
  spec: ResourceSpec,
  options: Record<string, unknown>,
): Record<string, unknown> {
  return {
    ...selectionQuery(spec, options),
    fields: options.fields,
    sort: options.sort,
    expand: options.expand,
  };
}

/** The API query for the selection options given (addSelectionOptions); unset ones are left out. */
export function selectionQuery(
  spec: ResourceSpec,
  options: Record<string, unknown>,
): Record<string, unknown> {
  const query: Record<string, unknown> = { status: options.status, q: options.q };
  // `--hired-on-gte 2024-01-01 --hired-on-lt 2025-01-01` → `hired_on: {gte, lt}` (hired_on[gte]=…).
  for (const field of spec.ranges) {
    const range = Object.fromEntries(
      (Object.keys(BOUNDS) as Bound[])
        .map((bound) => [bound, options[camel(`${field}_${bound}`)]] as const)
        .filter(([, value]) => value !== undefined),
    );
    if (Object.keys(range).length > 0) query[field] = range;
  }
  // commander camel-cases `--client-id` to `clientId`.
  for (const filter of spec.filters) query[filter] = options[camel(filter)];
  return query;
}
