// `erp import <resource> <file|->` (cli/cli's shape): newCmdImport parses the flags into
// ImportOptions, with the factory's streams, API client and Ctrl-C; importRun (import-run.ts) does
// the work, so a test runs it with captured streams and a fake API.
import { Command, InvalidArgumentError } from "commander";
import { resolveConnection } from "../config.ts";
import { clientFor, globalOptions } from "../context.ts";
import type { ExitCode } from "../exit-codes.ts";
import type { Factory } from "../factory.ts";
import { DELIMITERS, type Delimiter } from "../import/csv-parser.ts";
import { LOOKUP_COLUMNS } from "../import/references.ts";
import { IMPORT_FORMATS } from "../import/rows.ts";
import { type DateFormat, parseDateFormat } from "../import/values.ts";
import { outputFormat } from "../output.ts";
import { oneOf, parseConcurrency } from "../parsers.ts";
import { RESOURCE_NAMES } from "../resources.ts";
import { IMPORT_DESCRIPTION, IMPORT_EXAMPLES, IMPORT_SUMMARY } from "./import-help.ts";
import type { ImportFlags, ImportOptions } from "./import-options.ts";
import { importRun } from "./import-run.ts";

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export function newCmdImport(
  f: Factory,
  runF: (opts: ImportOptions) => Promise<ExitCode> = importRun,
): Command {
  const command = new Command("import")
    .summary(IMPORT_SUMMARY)
    .description(IMPORT_DESCRIPTION)
    .addHelpText("after", IMPORT_EXAMPLES)
    .argument("<resource>", RESOURCE_NAMES.join(", "), oneOf(RESOURCE_NAMES))
    .argument("<file>", "a .csv, .ndjson, .jsonl or .xlsx file, or - for stdin");
  addImportFlags(command);
  return command.action(
    async (resource: string, file: string, flags: ImportFlags, self: Command) => {
      const globals = globalOptions(self);
      f.exitCode = await runF({
        ...flags,
        resource,
        file,
        io: f.io,
        env: f.env,
        output: outputFormat(globals.output, f.io.stdout.isTTY === true),
        connection: resolveConnection(globals, f.env),
        client: (overrides) => clientFor(f, globals, overrides),
        onInterrupt: (handler) => f.onInterrupt(handler),
        exitNow: (code, lastWords) => f.exitNow(code, lastWords),
        sameKeystrokeMs: f.env.npm_lifecycle_event === undefined ? 0 : 500,
      });
    },
  );
}

function addImportFlags(command: Command): void {
  command
    .option(
      "--format <format>",
      "csv, ndjson or xlsx (default: from the extension, else the first bytes: a zip is a workbook, { is NDJSON)",
      oneOf(IMPORT_FORMATS),
    )
    .option("--sheet <name>", "the sheet of an .xlsx workbook to read (default: the first)")
    .option(
      "--delimiter <char>",
      'a CSV\'s delimiter: ",", ";" or tab (default: the one its header line uses most)',
      parseDelimiter,
    )
    .option(
      "--dry-run",
      "check every row in order, as the real run would (duplicates in the file, the quota); nothing is written",
    )
    .option("--upsert", "rows whose external_id names a record update it instead of being refused")
    .option(
      "--update",
      "each row updates the record its id column names, sending only the cells that differ from " +
        "it (an empty cell empties the field)",
    )
    .option(
      "--if-unmodified",
      "with --update: refuse (412) the rows whose record changed since the export, by its updated_at column",
    )
    .option(
      "--map <header=field>",
      'read a column as a field (repeatable), e.g. --map "Phone Number=phone"',
      collect,
      [],
    )
    .option("--skip-column <header>", "leave a column out (repeatable)", collect, [])
    .option(
      "--skip-unknown-columns",
      "leave out every column that matches no field, with a warning each",
    )
    .option(
      "--create-missing <columns>",
      `create the ${LOOKUP_COLUMNS.join(" and ")} values the file names and the company lacks ` +
        `(${LOOKUP_COLUMNS.join(",")}), once, before the first row that needs each`,
      parseLookupColumns,
    )
    .option(
      "--date-format <layout>",
      "read dates that are not YYYY-MM-DD in this layout: DD.MM.YYYY, DD/MM/YYYY, MM/DD/YYYY, " +
        "YYYY/MM/DD, YY for two-digit years",
      parseLayout,
    )
    .option("--decimal-comma", "the comma is the decimal mark in numbers and amounts (1.250,50)")
    .option(
      "--skip-repeated",
      "leave out rows equal in every cell to an earlier row (they are still counted)",
    )
    .option("--batch-size <n>", "rows per request (at most 500)", parseBatchSize, 500)
    .option(
      "--concurrency <n>",
      "batches in flight at once; batches that could meet (a unique value in common, a limited " +
        "quota, a dry-run) still wait for each other",
      parseConcurrency,
      3,
    )
    .option("--report <file>", "write one NDJSON line per rejected row here")
    .option(
      "--rejects <file>",
      "write the rejected rows here, their own columns and values plus an error column (.xlsx: a " +
        "workbook, else CSV), to import again with the same flags",
    );
}

function parseLayout(value: string): DateFormat {
  const layout = parseDateFormat(value);
  if (!layout)
    throw new InvalidArgumentError(
      "a layout of DD, MM and YYYY (or YY) with one of . / - between them: DD.MM.YYYY, " +
        "DD/MM/YYYY, MM/DD/YYYY, YYYY/MM/DD, DD.MM.YY",
    );
  return layout;
}

/** `trade,category`: the reference columns whose missing names are created. */
function parseLookupColumns(value: string): string[] {
  const columns = value.split(",").map((column) => column.trim().toLowerCase());
  const unknown = columns.filter((column) => !LOOKUP_COLUMNS.includes(column));
  if (unknown.length > 0 || columns.length === 0)
    throw new InvalidArgumentError(
      `a comma-separated list of ${LOOKUP_COLUMNS.join(", ")} (the company-managed lookups)` +
        (unknown.length > 0 ? `, not ${unknown.join(", ")}` : ""),
    );
  return columns;
}

function parseBatchSize(value: string): number {
  const size = Number(value);
  if (!Number.isInteger(size) || size < 1 || size > 500)
    throw new InvalidArgumentError("a whole number from 1 to 500");
  return size;
}

/** `,`, `;` or a tab (also written `tab` or `\t`, as a shell passes them more easily). */
function parseDelimiter(value: string): Delimiter {
  const delimiter = value === "tab" || value === "\\t" ? "\t" : value;
  if ((DELIMITERS as readonly string[]).includes(delimiter)) return delimiter as Delimiter;
  throw new InvalidArgumentError('one of ",", ";" or tab');
}
