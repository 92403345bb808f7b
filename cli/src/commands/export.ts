// `erp export <resource>`: every matching record, page after page, streamed to stdout as NDJSON, CSV
// or an Excel workbook.
import type { Command } from "commander";
import { clientOf } from "../context.ts";
import { recordSink } from "../output.ts";
import { oneOf } from "../parsers.ts";
import { RESOURCES, resourceClient } from "../resources.ts";
import { UsageError } from "../usage-error.ts";
import { addFilterOptions, filterQuery } from "./resource/filters.ts";
import { exportHelp } from "./resource/help.ts";

const EXPORT_FORMATS = ["ndjson", "csv", "xlsx"] as const;
const PAGE_SIZE = 100;

export function registerExport(program: Command): void {
  const group = program
    .command("export")
    .summary("every record of a resource as NDJSON, CSV or XLSX, streamed page by page");
  // One subcommand per resource, so each offers exactly the filters its collection accepts.
  for (const spec of RESOURCES) {
    const command = group
      .command(spec.name)
      .summary(`every one of the ${spec.name} (the same filters as \`${spec.name} list\`)`)
      .option(
        "--format <format>",
        "ndjson (default), csv, or xlsx (one sheet, typed cells: dates, money with two decimals, ids as numbers)",
        oneOf(EXPORT_FORMATS),
        "ndjson",
      )
      .option(
        "--bom",
        "start the CSV with a UTF-8 byte-order mark, so spreadsheet programs (Excel) read its accents and CJK right",
      );
    addFilterOptions(command, spec);
    command.addHelpText("after", exportHelp(spec));
    command.action(async (options: Record<string, unknown>) => {
      if (options.bom && options.format !== "csv")
        throw new UsageError("--bom is for CSV read by spreadsheet programs: add --format csv");
      const client = resourceClient(clientOf(command), spec.name);
      const sink =
        options.format === "xlsx"
          ? // The workbook library takes some 30 MB to load: only a workbook export loads it.
            (await import("../xlsx-export.ts")).xlsxSink(spec)
          : recordSink(options.format as "ndjson" | "csv", { bom: options.bom === true });
      let count = 0;
      // Paged on after_id: every page costs the server the same, however deep; only the first carries the total.
      let total: number | undefined;
      for await (const page of client
        .list({
          ...filterQuery(spec, options),
          limit: PAGE_SIZE,
          total: process.stderr.isTTY === true,
        })
        .pages()) {
        for (const record of page.data) await sink.write(record);
        count += page.data.length;
        total ??= page.meta.total;
        if (process.stderr.isTTY)
          process.stderr.write(`\r\x1b[2K${spec.name}: ${count} of ${total}`);
      }
      await sink.end();
      if (process.stderr.isTTY) process.stderr.write("\r\x1b[2K");
      process.stderr.write(`exported ${count} ${spec.name}\n`);
    });
  }
}
