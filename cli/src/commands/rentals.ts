// `erp rentals list|create|update|aggregate <equipment-id>`: the rentals of one piece of equipment.
import type { Command } from "commander";
import { clientOf, formatOf } from "../context.ts";
import { readBody } from "../body.ts";
import { printMany, printOne } from "../output.ts";
import { parseFields, parseId } from "../parsers.ts";
import { printReport } from "./resource/aggregate.ts";

type Json = Record<string, unknown>;

export function registerRentals(program: Command): void {
  const rentals = program
    .command("rentals")
    .summary("rentals of one piece of equipment: list, create, update, aggregate");
  const client = (command: Command, equipment: number) =>
    clientOf(command).equipment.rentals(equipment) as unknown as {
      listPage(query: Json): Promise<{ data: Json[] }>;
      create(body: Json, options: Json): Promise<Json>;
      update(id: number, body: Json, options: Json): Promise<Json>;
      aggregate(query: Json): Promise<{ data: ({ group: Json } & Json)[] }>;
    };

  rentals
    .command("aggregate")
    .argument("<equipment-id>", "the equipment's id", parseId)
    .summary("count and total one piece of equipment's rentals in groups")
    .option(
      "--group-by <a,b>",
      "fields to group by: billed, project_id, month(start_date), …",
      parseFields,
    )
    .option("--metrics <a,b>", "count (default), sum(daily_rate), max(end_date), …", parseFields)
    .addHelpText(
      "after",
      "\nEXAMPLES\n  erp rentals aggregate 12 --group-by billed --metrics count,sum(daily_rate)\n",
    )
    .action(async (equipment: number, options: Json, command: Command) => {
      const report = await client(command, equipment).aggregate(options);
      await printReport(formatOf(command), report.data);
    });

  rentals
    .command("list")
    .argument("<equipment-id>", "the equipment's id", parseId)
    .summary("the rentals of one piece of equipment")
    .addHelpText("after", "\nEXAMPLES\n  erp rentals list 12\n")
    .action(async (equipment: number, _options: Json, command: Command) => {
      const page = await client(command, equipment).listPage({ limit: 100 });
      await printMany(formatOf(command), page.data);
    });

  rentals
    .command("create")
    .argument("<equipment-id>", "the equipment's id", parseId)
    .argument("[fields...]", "key=value pairs")
    .summary("rent a piece of equipment to a project")
    .option("--data <json>", "the body as JSON")
    .option("--dry-run", "validate only")
    .addHelpText(
      "after",
      "\nEXAMPLES\n  erp rentals create 12 project_id=7 start_date=2026-04-01 daily_rate=300\n",
    )
    .action(
      async (
        equipment: number,
        fields: string[],
        options: { data?: string; dryRun?: boolean },
        command: Command,
      ) => {
        const body = readBody({ data: options.data }, fields) as Json;
        await printOne(
          formatOf(command),
          await client(command, equipment).create(body, { dryRun: options.dryRun === true }),
        );
      },
    );

  rentals
    .command("update")
    .argument("<equipment-id>", "the equipment's id", parseId)
    .argument("<rental-id>", "the rental's id", parseId)
    .argument("[fields...]", "key=value pairs")
    .summary("change a rental (billed=true bills it, after which it never changes)")
    .option("--data <json>", "the body as JSON")
    .option("--dry-run", "validate only")
    .option("--if-match <etag>", "only if unchanged")
    .addHelpText(
      "after",
      "\nEXAMPLES\n  erp rentals update 12 34 end_date=2026-04-10 billed=true\n",
    )
    .action(
      async (
        equipment: number,
        rental: number,
        fields: string[],
        options: { data?: string; dryRun?: boolean; ifMatch?: string },
        command: Command,
      ) => {
        const body = readBody({ data: options.data }, fields) as Json;
        await printOne(
          formatOf(command),
          await client(command, equipment).update(rental, body, {
            dryRun: options.dryRun === true,
            ifMatch: options.ifMatch,
          }),
        );
      },
    );
}
