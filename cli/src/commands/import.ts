// `erp import <resource> <file|->`: creates (or with --upsert or --update updates) one record per CSV or NDJSON
// row, in ordered batches, exactly once whatever happens.
import { writeSync } from "node:fs";
import { type Command, InvalidArgumentError } from "commander";
import { resolveConnection } from "../config.ts";
import { clientOf, formatOf, globalOptions } from "../context.ts";
import { EXIT } from "../exit-codes.ts";
import { planColumns } from "../import/columns.ts";
import { Journal } from "../import/journal.ts";
import { ReferenceResolver } from "../import/references.ts";
import { CsvRejects, NO_REJECTS, wantsWorkbook } from "../import/rejects.ts";
import { type ImportSummary, ImportRun } from "../import/run-import.ts";
import { Progress } from "../import/progress.ts";
import { Report } from "../import/report.ts";
import { RowReader } from "../import/row-body.ts";
import { missingUpdateColumns, UpdateTarget } from "../import/update-target.ts";
import { IMPORT_FORMATS, type ImportFormat, openSource } from "../import/rows.ts";
import { type DateFormat, parseDateFormat } from "../import/values.ts";
import { printOne } from "../output.ts";
import { oneOf, parseConcurrency } from "../parsers.ts";
import { describeApiError } from "../report-error.ts";
import { UsageError } from "../usage-error.ts";
import { RESOURCE_NAMES, resourceClient, specOf } from "../resources.ts";

interface ImportFlags {
  format?: ImportFormat;
  sheet?: string;
  dryRun?: boolean;
  upsert?: boolean;
  update?: boolean;
  ifUnmodified?: boolean;
  concurrency: number;
  batchSize: number;
  dateFormat?: DateFormat;
  decimalComma?: boolean;
  skipRepeated?: boolean;
  report?: string;
  rejects?: string;
  map: string[];
  skipColumn: string[];
  skipUnknownColumns?: boolean;
}

/** The SDK's retries of one batch: its backoff (0.5 s doubling to 8 s) adds up to about a minute. */
const BATCH_RETRIES = 10;

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/**
 * A script runner (`bun run erp`, `npm run`) passes the terminal's Ctrl-C on to the CLI, which the
 * terminal signalled too (it signals the whole process group): one keystroke then arrives twice,
 * well within this, and must not read as the second Ctrl-C that quits without finishing.
 */
const SAME_KEYSTROKE_MS = process.env.npm_lifecycle_event === undefined ? 0 : 500;

const QUIT_AT_ONCE =
  "quit at once; the rows in flight count as not imported, though some may have gone in " +
  "(a re-run settles them, writing none twice)";

export function registerImport(program: Command): void {
  program
    .command("import")
    .summary(
      "create (or --upsert, or --update by id) records from a CSV, NDJSON or Excel (.xlsx) file " +
        "(or stdin), exactly once",
    )
    .description(
      [
        "Creates one record per row, in batches in file order (the first of two rows with the same unique value wins).",
        "CSV: a header line names the fields. A header matches a field after trimming, case folding " +
          'and turning spaces and hyphens into _ ("Phone Number" is phone_number), by its name or an ' +
          'alias the API declares (phone_number is phone, e_mail is email); --map "Header=field" maps ' +
          "any other. The header is checked before anything is sent: a column that matches nothing " +
          "stops the import (exit 2) naming the closest field, unless --skip-column or " +
          "--skip-unknown-columns leaves it out. The columns trade, category, client, project (any " +
          "*_id field without _id) may name the record, by name or external_id. The id, created_at, " +
          "updated_at and deleted_at columns of an export and a rejects file's error column are " +
          "skipped.",
        "--update: each row updates the record its id column names (an export's file, edited), " +
          "sending only the cells that differ from the record (an empty cell empties the field); rows " +
          "equal to their record are unchanged and not sent; --if-unmodified refuses (412) the rows " +
          "whose record changed since the export, by their updated_at column.",
        "Values as spreadsheets write them: cells are trimmed, and an empty cell is left out. " +
          "Amounts and numbers may carry thousands separators (1,250.50, 1 250.50, 1'250.50) and a " +
          "currency symbol or code (€45, 45 EUR, $1,200): the symbol is dropped, but it must agree " +
          "with the row's currency where the record has one (a row without a currency takes the " +
          "amounts'). With --decimal-comma the comma is the decimal mark (1.250,50). Dates are " +
          "YYYY-MM-DD, or the layout --date-format names (DD.MM.YYYY, DD/MM/YYYY, MM/DD/YYYY, " +
          "YYYY/MM/DD, YY for two-digit years, any of . / - between the parts): day-first and " +
          "month-first are never guessed. Booleans are true/false, yes/no or 1/0, in any case. " +
          "NDJSON: one JSON object a line, sent as it is.",
        "XLSX: the first sheet (or --sheet NAME), its first non-empty row the header; cells are read " +
          "as the sheet holds them, not as it displays them: a date cell is a date, a number a number " +
          "(in the currency its format shows, if any), a text cell its text (leading zeros kept), a " +
          "formula its saved value. Other binary files (a PDF, an image, an .xlsx renamed .csv) are " +
          "refused before anything is sent.",
        "A row's problems are reported at once: the cells the CLI cannot read or names that match " +
          "no record, together with the API's checks of the rest of the row (a dry-run: such a row is " +
          "never written). Empty lines and rows of empty cells are counted as blank; a row equal in " +
          "every cell to an earlier one is counted as repeated and listed in --report, and still " +
          "imported unless --skip-repeated.",
        "Exactly once: each row carries a key made from its content and its occurrence among " +
          "identical rows (never its batch or position), so after Ctrl-C, a crash, a dropped " +
          "connection or a lost journal the same command writes no row twice. A journal (under " +
          "$XDG_STATE_HOME/erp/imports) spares re-sending rows that went through. The import paces " +
          "itself by the RateLimit headers, waits out 429s and retries other failures for about a " +
          "minute. A full quota, a refused token or Ctrl-C stop it (Ctrl-C prints the summary and " +
          'exits 130; a second Ctrl-C quits at once); the rows not sent are "not imported" (a re-run ' +
          "sends them), not rejects. Exit 3 when rows were rejected: --rejects writes them with the " +
          "file's own columns and values plus an error column, to fix and import again as they are.",
      ].join("\n\n"),
    )
    .addHelpText(
      "after",
      `
EXAMPLES
  erp import workers staff.csv --rejects fix-me.csv
  erp import workers staff.xlsx --sheet Crew --rejects fix-me.xlsx
  erp import workers fix-me.csv     # after fixing the rows; its error column is ignored
  erp import workers hr.csv --date-format DD.MM.YYYY --decimal-comma
  erp import workers hr-export.csv --map "Employee No=external_id" --skip-column Notes
  erp export projects --format csv > p.csv && erp import projects p.csv --upsert
  erp export workers --format csv > w.csv   # edit it in a spreadsheet, then:
  erp import workers w.csv --update --if-unmodified
  erp import clients clients.ndjson --dry-run`,
    )
    .argument("<resource>", RESOURCE_NAMES.join(", "), oneOf(RESOURCE_NAMES))
    .argument("<file>", "a .csv, .ndjson, .jsonl or .xlsx file, or - for stdin")
    .option(
      "--format <format>",
      "csv, ndjson or xlsx (default: from the extension, else the first bytes: a zip is a workbook, { is NDJSON)",
      oneOf(IMPORT_FORMATS),
    )
    .option("--sheet <name>", "the sheet of an .xlsx workbook to read (default: the first)")
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
      "write the rejected rows here, their own columns and values plus an error column (.xlsx: a workbook, else CSV)",
    )
    .action(async (resource: string, file: string, flags: ImportFlags, command: Command) => {
      const format = formatOf(command);
      const connection = resolveConnection(globalOptions(command));
      const spec = specOf(resource);
      if (flags.update && flags.upsert)
        throw new UsageError(
          "use --update (rows name records by id) or --upsert (by external_id), not both",
        );
      if (flags.ifUnmodified && !flags.update)
        throw new UsageError("--if-unmodified goes with --update");
      const source = await openSource(file, flags.format, {
        sheet: flags.sheet,
        typed: wantsWorkbook(flags.rejects),
      });
      const missing =
        flags.update && missingUpdateColumns(source.header, flags.ifUnmodified === true);
      if (missing) throw new UsageError(missing);
      const plan = source.header
        ? planColumns(spec, source.header, {
            map: flags.map,
            skip: flags.skipColumn,
            skipUnknown: flags.skipUnknownColumns === true,
            read: flags.update ? ["id", ...(flags.ifUnmodified ? ["updated_at"] : [])] : [],
          })
        : undefined;
      const report = new Report(flags.report);
      // The workbook library takes some 30 MB to load: only a workbook of rejects loads it.
      const rejects =
        flags.rejects === undefined
          ? NO_REJECTS
          : wantsWorkbook(flags.rejects)
            ? new (await import("../import/xlsx-rejects.ts")).XlsxRejects(
                flags.rejects,
                source.header,
              )
            : new CsvRejects(flags.rejects, source.header, {
                delimiter: source.delimiter ?? ",",
                bom: source.bom,
                decimalComma: flags.decimalComma === true,
              });
      const progress = new Progress(
        `${resource} ← ${file === "-" ? "stdin" : file}`,
        source.totalSize,
      );
      for (const warning of plan?.warnings ?? []) progress.log(warning);
      let requests = 0;
      const erp = clientOf(command, {
        maxRetries: BATCH_RETRIES,
        onRequest: () => void requests++,
      });
      const client = resourceClient(erp, resource);
      const run = new ImportRun({
        resource,
        source,
        report,
        rejects,
        progress,
        client,
        update: flags.update
          ? new UpdateTarget(source.header, plan?.columns, flags.ifUnmodified === true)
          : undefined,
        reader:
          plan &&
          new RowReader(spec, plan.columns, {
            decimalComma: flags.decimalComma === true,
            dateFormat: flags.dateFormat,
          }),
        dryRun: flags.dryRun === true,
        upsert: flags.upsert === true,
        skipRepeated: flags.skipRepeated === true,
        batchSize: flags.batchSize,
        concurrency: flags.concurrency,
        journal: Journal.for(connection.baseUrl, connection.token, resource),
        references: new ReferenceResolver(erp, spec),
        requests: () => requests,
      });

      // Ctrl-C stopped the import (exit 130); the first Ctrl-C's time, to tell a second one.
      let interrupted = false;
      let ctrlCAt: number | undefined;
      let ended = false;
      const onInterrupt = (): void => {
        const now = performance.now();
        if (ctrlCAt !== undefined) {
          if (now - ctrlCAt < SAME_KEYSTROKE_MS) return;
          // Written at once: process.exit does not wait for a pipe to take buffered output.
          writeSync(2, `${sentence({ ...run.summary, stopped: QUIT_AT_ONCE })}\n`);
          process.exit(EXIT.INTERRUPTED);
        }
        ctrlCAt = now;
        // An import that has ended has nothing left to stop: its summary and exit code stand.
        if (ended) return;
        interrupted = true;
        progress.log(
          "interrupted: finishing the batch in flight (Ctrl-C again to quit at once: nothing is " +
            "written twice either way)",
        );
        run.stop("interrupted");
      };
      // Kept to the end: a Ctrl-C as the import ends must not kill the CLI before its summary is out.
      process.on("SIGINT", onInterrupt);
      const summary = await run.run().finally(async () => {
        await rejects.close();
        return report.close();
      });
      ended = true;

      await printOne(format, { ...summary, report: flags.report ?? null });
      if (run.stopError) process.stderr.write(describeApiError(run.stopError));
      if (run.quotaFull && !summary.dry_run)
        process.stderr.write(
          `The ${resource} quota of your plan is full: the rest of the file was not sent. ` +
            `Delete records or raise the quota, then run the same command again.\n`,
        );
      process.stderr.write(`${sentence(summary)}\n`);
      process.exitCode = interrupted
        ? EXIT.INTERRUPTED
        : run.stopError || (run.quotaFull && !summary.dry_run)
          ? EXIT.API_ERROR
          : summary.rejected > 0
            ? EXIT.IMPORT_REJECTED
            : EXIT.OK;
    });
}

/** Every row and blank line of the source in one sentence: each row is in one of the counts before the first ";". */
function sentence(summary: ImportSummary): string {
  const done = summary.dry_run
    ? `${summary.valid} valid`
    : `${summary.created} created, ${summary.updated} updated, ${summary.unchanged} unchanged, ` +
      `${summary.already_imported} already imported`;
  const notImported =
    summary.not_imported > 0 ? `, ${summary.not_imported} not imported (a re-run sends them)` : "";
  const skipped =
    summary.skipped_repeated > 0 ? `, ${summary.skipped_repeated} left out (--skip-repeated)` : "";
  const plural = (count: number, one: string, many: string): string =>
    `${count} ${count === 1 ? one : many}`;
  const each = " (each taken as a row of its own; --skip-repeated leaves them out)";
  const repeated =
    summary.repeated > 0
      ? `; ${plural(summary.repeated, "row repeats", "rows repeat")} an earlier row` +
        (summary.skipped_repeated > 0 ? "" : each)
      : "";
  const blank =
    summary.blank > 0 ? `; ${plural(summary.blank, "blank line", "blank lines")} skipped` : "";
  const end = summary.stopped ? ` Stopped early: ${summary.stopped}.` : "";
  return (
    `${summary.dry_run ? "Dry run of " : ""}${summary.rows} ${summary.resource} rows: ${done}, ` +
    `${summary.rejected} rejected${notImported}${skipped}${repeated}${blank} ` +
    `(${summary.seconds} s, ${summary.rows_per_second} rows/s, ${summary.requests} requests).${end}`
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

function parseBatchSize(value: string): number {
  const size = Number(value);
  if (!Number.isInteger(size) || size < 1 || size > 500)
    throw new InvalidArgumentError("a whole number from 1 to 500");
  return size;
}
