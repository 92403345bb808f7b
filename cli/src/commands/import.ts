// `erp import <resource> <file|->`: creates (or with --upsert updates) one record per CSV or NDJSON
// row, in ordered batches, safe to re-run.
import { type Command, InvalidArgumentError } from "commander";
import { resolveConnection } from "../config.ts";
import { clientOf, formatOf, globalOptions } from "../context.ts";
import { EXIT } from "../exit-codes.ts";
import { Journal } from "../import/journal.ts";
import { ReferenceResolver } from "../import/references.ts";
import { RejectsFile } from "../import/rejects.ts";
import { ImportRun } from "../import/run-import.ts";
import { Progress } from "../import/progress.ts";
import { Report } from "../import/report.ts";
import { IMPORT_FORMATS, type ImportFormat, openSource } from "../import/rows.ts";
import { printOne } from "../output.ts";
import { oneOf, parseConcurrency } from "../parsers.ts";
import { describeApiError } from "../report-error.ts";
import { RESOURCE_NAMES, resourceClient } from "../resources.ts";

interface ImportFlags {
  format?: ImportFormat;
  dryRun?: boolean;
  upsert?: boolean;
  concurrency: number;
  batchSize: number;
  report?: string;
  rejects?: string;
}

export function registerImport(program: Command): void {
  program
    .command("import")
    .summary("create (or --upsert) records from a CSV or NDJSON file (or stdin), safe to re-run")
    .description(
      "Creates one record per row, in batches in file order (the first of two rows with the same unique value\n" +
        "wins). CSV: a header line names the fields; empty cells are left out, *_id cells become integers,\n" +
        "true/false booleans, everything else is sent as text; id, created_at, updated_at and deleted_at columns\n" +
        "(as `erp export` writes them) are skipped; the columns trade, category, client and project may name the\n" +
        "record (by name or external_id) instead of giving its *_id. NDJSON: one JSON object a line.\n" +
        "A journal (under $XDG_STATE_HOME/erp/imports) remembers the rows that went through, so re-running the\n" +
        "same command after an interruption, a full quota or a fix sends only the rest; each batch's idempotency\n" +
        "key comes from its rows, so a batch whose answer was lost is replayed, never written twice.\n" +
        "The import paces itself by the RateLimit headers, waits out 429s and retries other failures for 60 s.\n" +
        "A full quota stops it (exit 1). Exit 3 when rows were rejected (--report, --rejects list them).\n\n" +
        "EXAMPLES\n" +
        "  erp import workers staff.csv --rejects fix-me.csv\n" +
        "  erp import workers fix-me.csv            # after fixing the rows (drop the error column or keep it: unknown)\n" +
        "  erp export projects --format csv > p.csv && erp import projects p.csv --upsert\n" +
        "  erp import clients clients.ndjson --dry-run",
    )
    .argument("<resource>", RESOURCE_NAMES.join(", "), oneOf(RESOURCE_NAMES))
    .argument("<file>", "a .csv, .ndjson or .jsonl file, or - for stdin")
    .option("--format <format>", "csv or ndjson (default: from the extension, else the first character: { is NDJSON)", oneOf(IMPORT_FORMATS))
    .option("--dry-run", "check every row in order, as the real run would (duplicates inside a batch, quota); nothing is written")
    .option("--upsert", "rows whose external_id names a record update it instead of being refused")
    .option("--batch-size <n>", "rows per request (at most 500)", parseBatchSize, 500)
    .option("--concurrency <n>", "accepted for compatibility: batches go one at a time, in file order", parseConcurrency, 1)
    .option("--report <file>", "write one NDJSON line per rejected row here")
    .option("--rejects <file>", "write the rejected rows here as CSV, with their columns and an error column")
    .action(async (resource: string, file: string, flags: ImportFlags, command: Command) => {
      const format = formatOf(command);
      const connection = resolveConnection(globalOptions(command));
      // Retries are the import's own: 60 s per batch (429s waited out) rather than the SDK's count of attempts.
      const client = resourceClient(clientOf(command, { maxRetries: 0 }), resource);
      const report = new Report(flags.report);
      const rejects = new RejectsFile(flags.rejects);
      const source = await openSource(file, flags.format);
      const progress = new Progress(`${resource} ← ${file === "-" ? "stdin" : file}`, source.totalSize);
      const run = new ImportRun({
        resource, client, source, report, rejects, progress,
        dryRun: flags.dryRun === true, upsert: flags.upsert === true, batchSize: flags.batchSize,
        journal: Journal.for(connection.baseUrl, connection.token, resource),
        references: new ReferenceResolver(clientOf(command)),
      });

      let interrupted = false;
      const onInterrupt = (): void => {
        if (interrupted) process.exit(EXIT.INTERRUPTED);
        interrupted = true;
        progress.log("interrupted: finishing the rows in flight (Ctrl-C again to quit at once)");
        run.stop("interrupted");
      };
      process.on("SIGINT", onInterrupt);
      const summary = await run.run().finally(() => {
        rejects.write();
        return report.close();
      });
      process.off("SIGINT", onInterrupt);

      await printOne(format, { ...summary, report: flags.report ?? null });
      if (run.stopError) process.stderr.write(describeApiError(run.stopError));
      if (run.quotaFull && !summary.dry_run) process.stderr.write(`The ${resource} quota of your plan is full: the rest of the file was not sent. Delete records or raise the quota, then run the same command again.\n`);
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

function sentence(summary: Awaited<ReturnType<ImportRun["run"]>>): string {
  const done = summary.dry_run
    ? `${summary.valid} valid`
    : `${summary.created} created, ${summary.updated} updated, ${summary.unchanged} unchanged, ${summary.already_imported} already imported`;
  const end = summary.stopped ? ` Stopped early: ${summary.stopped}.` : "";
  return `${summary.dry_run ? "Dry run of " : ""}${summary.rows} ${summary.resource} rows: ${done}, ${summary.rejected} rejected ` +
    `(${summary.seconds} s, ${summary.rows_per_second} rows/s, ${summary.requests} requests).${end}`;
}

function parseBatchSize(value: string): number {
  const size = Number(value);
  if (!Number.isInteger(size) || size < 1 || size > 500) throw new InvalidArgumentError("a whole number from 1 to 500");
  return size;
}
