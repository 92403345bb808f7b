// The work of `erp import` (its flags are import.ts's): check the flags, open the file and plan its
// columns before anything is sent, run the FileImport under Ctrl-C, then print the summary and say
// the exit code. Every stream, the API client and Ctrl-C come in the options.
import type { CollectionSpec, ErpClient } from "@erp/sdk";
import { customFieldsOf } from "../custom-fields.ts";
import { EXIT, type ExitCode } from "../exit-codes.ts";
import { type ColumnOptions, type ColumnPlan, planColumns } from "../import/columns.ts";
import { CtrlC } from "../import/ctrl-c.ts";
import { FileImport } from "../import/file-import.ts";
import { Journal } from "../import/journal.ts";
import { Progress } from "../import/progress.ts";
import { ReferenceResolver } from "../import/references.ts";
import { CsvRejects, NO_REJECTS, type RejectsSink, wantsWorkbook } from "../import/rejects.ts";
import { Report } from "../import/report.ts";
import { RowReader } from "../import/row-body.ts";
import { type ImportSource, openSource } from "../import/rows.ts";
import { exitCodeOf, type Outcome, sentence } from "../import/summary.ts";
import { missingUpdateColumns, UpdateTarget } from "../import/update-target.ts";
import { printOne } from "../output.ts";
import { describeApiError } from "../report-error.ts";
import { resourceClient, specOf } from "../resources.ts";
import { UsageError } from "../usage-error.ts";
import type { ImportOptions } from "./import-options.ts";

/** The SDK's retries of one batch: its backoff (0.5 s doubling to 8 s) adds up to about a minute. */
const BATCH_RETRIES = 10;

const QUIT_AT_ONCE =
  "quit at once; the rows in flight count as not imported, though some may have gone in " +
  "(a re-run settles them, writing none twice)";

/** The import, ready to run: the run and the files it writes. */
interface Prepared {
  run: FileImport;
  rejects: RejectsSink;
  report: Report;
  progress: Progress;
}

export async function importRun(opts: ImportOptions): Promise<ExitCode> {
  checkFlags(opts);
  const prepared = await prepare(opts);
  const outcome = await runUnderCtrlC(prepared, opts);
  await printOutcome(outcome, prepared.run, opts);
  return exitCodeOf(outcome);
}

function checkFlags(opts: ImportOptions): void {
  if (opts.update && opts.upsert)
    throw new UsageError(
      "use --update (rows name records by id) or --upsert (by external_id), not both",
    );
  if (opts.ifUnmodified && !opts.update) throw new UsageError("--if-unmodified goes with --update");
}

/** The resolver of the file's reference columns, creating the missing lookup values --create-missing names. */
function referencesFor(
  opts: ImportOptions,
  erp: ErpClient,
  spec: CollectionSpec,
  progress: Progress,
): ReferenceResolver {
  if (!opts.createMissing) return new ReferenceResolver(erp, spec);
  const dryRun = opts.dryRun === true;
  return new ReferenceResolver(erp, spec, {
    columns: new Set(opts.createMissing),
    dryRun,
    onCreate: ({ column, name, id }) =>
      progress.log(
        dryRun ? `would create ${column} "${name}"` : `created ${column} "${name}" (id ${id})`,
      ),
  });
}

/**
 * The header's columns. The company's custom fields are read only when a column (or a --map) names
 * no built-in field: a file of the API's own fields costs no request before its rows.
 */
async function columnsOf(
  spec: CollectionSpec,
  header: readonly string[],
  erp: ErpClient,
  opts: ImportOptions,
  options: ColumnOptions,
): Promise<ColumnPlan> {
  try {
    planColumns(spec, header, { ...options, skipUnknown: false });
    return planColumns(spec, header, options);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const customFields = await customFieldsOf(erp, opts.resource);
    return planColumns(spec, header, { ...options, customFields });
  }
}

/** The file opened and its header checked, and everything the run writes to: nothing is sent yet. */
async function prepare(opts: ImportOptions): Promise<Prepared> {
  const spec = specOf(opts.resource);
  const source = await openSource(opts.file, opts.format, {
    sheet: opts.sheet,
    typed: wantsWorkbook(opts.rejects),
    delimiter: opts.delimiter,
    stdin: opts.io.stdin,
  });
  const missing = opts.update && missingUpdateColumns(source.header, opts.ifUnmodified === true);
  if (missing) throw new UsageError(missing);
  if (opts.createMissing && !source.header)
    throw new UsageError(
      "--create-missing creates the trades and categories a CSV or XLSX file names in its " +
        "columns; NDJSON rows give their ids (trade_id, category_id)",
    );
  let requests = 0;
  const erp = opts.client({ maxRetries: BATCH_RETRIES, onRequest: () => void requests++ });
  const plan = source.header
    ? await columnsOf(spec, source.header, erp, opts, {
        map: opts.map,
        skip: opts.skipColumn,
        skipUnknown: opts.skipUnknownColumns === true,
        read: opts.update ? ["id", ...(opts.ifUnmodified ? ["updated_at"] : [])] : [],
      })
    : undefined;
  const report = new Report(opts.report);
  const rejects = await rejectsFor(opts, source);
  const label = `${opts.resource} ← ${opts.file === "-" ? "stdin" : opts.file}`;
  const progress = new Progress(label, source.totalSize, opts.io.stderr);
  for (const warning of plan?.warnings ?? []) progress.log(warning);
  const { baseUrl, token } = opts.connection;
  const run = new FileImport({
    resource: opts.resource,
    unique: spec.import.unique,
    source,
    report,
    rejects,
    progress,
    client: resourceClient(erp, opts.resource),
    update: opts.update
      ? new UpdateTarget(source.header, plan?.columns, opts.ifUnmodified === true)
      : undefined,
    reader:
      plan &&
      new RowReader(spec, plan.columns, {
        decimalComma: opts.decimalComma === true,
        dateFormat: opts.dateFormat,
      }),
    dryRun: opts.dryRun === true,
    upsert: opts.upsert === true,
    skipRepeated: opts.skipRepeated === true,
    batchSize: opts.batchSize,
    concurrency: opts.concurrency,
    journal: Journal.for(baseUrl, token, opts.resource, opts.env),
    references: referencesFor(opts, erp, spec, progress),
    requests: () => requests,
  });
  return { run, rejects, report, progress };
}

/** The --rejects file in the format its name asks for, written so the same flags read it back. */
async function rejectsFor(opts: ImportOptions, source: ImportSource): Promise<RejectsSink> {
  if (opts.rejects === undefined) return NO_REJECTS;
  // The workbook library takes some 30 MB to load: only a workbook of rejects loads it.
  if (wantsWorkbook(opts.rejects))
    return new (await import("../import/xlsx-rejects.ts")).XlsxRejects(opts.rejects, source.header);
  return new CsvRejects(opts.rejects, source.header, {
    delimiter: source.delimiter ?? opts.delimiter ?? ",",
    bom: source.bom,
    decimalComma: opts.decimalComma === true,
  });
}

/** Runs the import to its end; the first Ctrl-C stops it after the batches in flight, a second at once. */
async function runUnderCtrlC(
  { run, rejects, report, progress }: Prepared,
  opts: ImportOptions,
): Promise<Outcome> {
  const ctrlC = new CtrlC(opts.sameKeystrokeMs, {
    first() {
      progress.log(
        "interrupted: finishing the batch in flight (Ctrl-C again to quit at once: nothing is " +
          "written twice either way)",
      );
      run.stop("interrupted");
    },
    second: () =>
      opts.exitNow(EXIT.INTERRUPTED, `${sentence({ ...run.summary, stopped: QUIT_AT_ONCE })}\n`),
  });
  // Heard to the end: a Ctrl-C as the import ends must not kill the CLI before its summary is out.
  opts.onInterrupt(() => ctrlC.press(performance.now()));
  const summary = await run.run().finally(async () => {
    await rejects.close();
    return report.close();
  });
  ctrlC.end();
  return {
    summary,
    interrupted: ctrlC.interrupted,
    unreadable: run.sourceError !== undefined,
    apiStopped: run.stopError !== undefined,
    quotaFull: run.quotaFull,
  };
}

async function printOutcome(outcome: Outcome, run: FileImport, opts: ImportOptions): Promise<void> {
  const { summary } = outcome;
  const err = opts.io.stderr;
  await printOne(opts.output, { ...summary, report: opts.report ?? null }, opts.io.stdout);
  if (run.stopError) err.write(describeApiError(run.stopError));
  if (run.sourceError) err.write(`error: ${run.sourceError.message}\n`);
  if (outcome.quotaFull && !summary.dry_run)
    err.write(
      `The ${opts.resource} quota of your plan is full: the rest of the file was not sent. ` +
        "Delete records or raise the quota, then run the same command again.\n",
    );
  err.write(`${sentence(summary)}\n`);
}
