// `erp export <resource>` (cli/cli's shape): every matching record, page after page, streamed to
// stdout as NDJSON, CSV or an Excel workbook. newCmdExport parses each resource's flags into
// ExportOptions; exportRun pages and writes, with the streams and API client the options carry.
import { Command } from "commander";
import type { ErpClient } from "@erp/sdk";
import { clientFor, globalOptions } from "../context.ts";
import { collectionKindOf, customFieldsOf, customMember } from "../custom-fields.ts";
import { EXIT, type ExitCode } from "../exit-codes.ts";
import type { Factory, IOStreams } from "../factory.ts";
import { recordSink } from "../output.ts";
import { oneOf } from "../parsers.ts";
import { RESOURCES, type ResourceSpec, resourceClient } from "../resources.ts";
import { UsageError } from "../usage-error.ts";
import { addFilterOptions, filterQuery } from "./resource/filters.ts";
import { exportHelp } from "./resource/help.ts";

const EXPORT_FORMATS = ["ndjson", "csv", "xlsx"] as const;
type ExportFormat = (typeof EXPORT_FORMATS)[number];
const PAGE_SIZE = 100;

export interface ExportOptions {
  spec: ResourceSpec;
  format: ExportFormat;
  bom: boolean;
  /** The list query the filter flags make (status, q, ranges, sort, expand, fields, id filters). */
  query: Record<string, unknown>;
  io: IOStreams;
  /** An SDK client for the connection. */
  client(): ErpClient;
}

export function newCmdExport(
  f: Factory,
  runF: (opts: ExportOptions) => Promise<ExitCode> = exportRun,
): Command {
  const group = new Command("export").summary(
    "every record of a resource as NDJSON, CSV or XLSX, streamed page by page",
  );
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
    command.action(async (flags: Record<string, unknown>, self: Command) => {
      const globals = globalOptions(self);
      f.exitCode = await runF({
        spec,
        format: flags.format as ExportFormat,
        bom: flags.bom === true,
        query: filterQuery(spec, flags),
        io: f.io,
        client: () => clientFor(f, globals),
      });
    });
  }
  return group;
}

export async function exportRun(opts: ExportOptions): Promise<ExitCode> {
  const { spec, io } = opts;
  if (opts.bom && opts.format !== "csv")
    throw new UsageError("--bom is for CSV read by spreadsheet programs: add --format csv");
  const erp = opts.client();
  const client = resourceClient(erp, spec.name);
  // A spreadsheet heads a custom field's column by its label, and types its cells by its type: the
  // sinks ask when the first record comes, after the definitions are read.
  const labels = new Map<string, string>();
  const header = (column: string): string => labels.get(column) ?? column;
  const kinds = { ...spec.kinds };
  const sink =
    opts.format === "xlsx"
      ? // The workbook library takes some 30 MB to load: only a workbook export loads it.
        (await import("../xlsx-export.ts")).xlsxSink({ name: spec.name, kinds }, io.stdout, header)
      : recordSink(opts.format, { bom: opts.bom, out: io.stdout, err: io.stderr, header });
  if (opts.format !== "ndjson")
    for (const field of await customFieldsOf(erp, spec.name)) {
      labels.set(customMember(field.key), field.label);
      Object.assign(kinds, { [customMember(field.key)]: collectionKindOf(field.type) });
    }
  const terminal = io.stderr.isTTY === true;
  let count = 0;
  // Paged on after_id: every page costs the server the same, however deep; only the first carries the total.
  let total: number | undefined;
  for await (const page of client
    .list({ ...opts.query, limit: PAGE_SIZE, total: terminal })
    .pages()) {
    for (const record of page.data) await sink.write(record);
    count += page.data.length;
    total ??= page.meta.total;
    if (terminal) io.stderr.write(`\r\x1b[2K${spec.name}: ${count} of ${total}`);
  }
  await sink.end();
  if (terminal) io.stderr.write("\r\x1b[2K");
  io.stderr.write(`exported ${count} ${spec.name}\n`);
  return EXIT.OK;
}
