// `erp <resource> aggregate`: counts and totals of the records the filters select, in groups
// (docs/cli.md): one row per group, its keys then its metrics, as a table, CSV or JSON.
import { clientOf, formatOf } from "../../context.ts";
import { type OutputFormat, printMany } from "../../output.ts";
import { parseFields } from "../../parsers.ts";
import { resourceClient } from "../../resources.ts";
import { addSelectionOptions, selectionQuery } from "./filters.ts";
import type { ResourceCommand } from "./resource-command.ts";

export const aggregate: ResourceCommand = {
  name: "aggregate",
  summary: (spec) => `count and total ${spec.name} in groups`,
  configure(command, spec) {
    command
      .option(
        "--group-by <a,b>",
        "up to 3 fields to group by: enums, references, booleans, day(f), week(f), month(f), year(f) of a date",
        parseFields,
      )
      .option(
        "--metrics <a,b>",
        "what each group computes (default count): count, sum(f), avg(f), min(f), max(f)",
        parseFields,
      );
    addSelectionOptions(command, spec);
  },
  help: (spec) =>
    "\nEXAMPLES\n" +
    `  erp ${spec.name} aggregate --group-by status\n` +
    `  erp projects aggregate --group-by status,month(start_date) --metrics count,sum(budget_amount) --output csv\n` +
    "\nMoney is exact decimal text; where the resource has a currency, money is grouped by it too.\n",
  async run(spec, command, _args, options) {
    const { groupBy, metrics } = options as { groupBy?: string[]; metrics?: string[] };
    const report = await resourceClient(clientOf(command), spec.name).aggregate({
      ...selectionQuery(spec, options),
      groupBy,
      metrics,
    });
    await printReport(formatOf(command), report.data);
  },
};

/** A report's groups: JSON as the API answers them; a table or CSV with each group's keys first. */
export function printReport(
  format: OutputFormat,
  rows: readonly ({ group: Record<string, unknown> } & Record<string, unknown>)[],
): Promise<void> {
  return printMany(
    format,
    format === "json" || format === "ndjson"
      ? rows
      : rows.map(({ group, ...values }) => ({ ...group, ...values })),
  );
}
