// `erp import <resource> <file|->`: creates one record per CSV or NDJSON row, safe to re-run.
import type { Command } from "commander";
import { clientOf, formatOf } from "../context.ts";
import { EXIT } from "../exit-codes.ts";
import { ImportRun } from "../import/run-import.ts";
import { Progress } from "../import/progress.ts";
import { Report } from "../import/report.ts";
import { IMPORT_FORMATS, type ImportFormat, openSource } from "../import/rows.ts";
import { printOne } from "../output.ts";
import { oneOf, parseConcurrency } from "../parsers.ts";
import { describeApiError } from "../report-error.ts";
import { RESOURCE_NAMES, resourceClient, type ResourceSpec } from "../resources.ts";

interface ImportFlags {
  format?: ImportFormat;
  dryRun?: boolean;
  concurrency: number;
  report?: string;
}

export function registerImport(program: Command): void {
  program
    .command("import")
    .summary("create records from a CSV or NDJSON file (or stdin), safe to re-run")
    .description(
      "Creates one record per row. CSV: a header line names the fields; empty cells are left out, *_id\n" +
        "cells become integers, true/false booleans, everything else is sent as text. NDJSON: one JSON object a line.\n" +
        "Each row's idempotency key comes from the resource, the row number and the row's content, so\n" +
        "re-running the same file after an interruption or a failure creates nothing twice.\n" +
        "Exit 3 when rows were rejected (--report lists them, one JSON line each).",
    )
    .argument("<resource>", RESOURCE_NAMES.join(", "), oneOf(RESOURCE_NAMES))
    .argument("<file>", "a .csv, .ndjson or .jsonl file, or - for stdin")
    .option("--format <format>", "csv or ndjson (default: from the extension, else the first character: { is NDJSON)", oneOf(IMPORT_FORMATS))
    .option("--dry-run", "validate every row; nothing is written")
    .option("--concurrency <n>", "rows sent at once", parseConcurrency, 4)
    .option("--report <file>", "write one NDJSON line per rejected row here")
    .action(async (resource: ResourceSpec["name"], file: string, flags: ImportFlags, command: Command) => {
      const format = formatOf(command);
      // Retries are the import's own: 60 s per row rather than the SDK's count of attempts.
      const client = resourceClient(clientOf(command, { maxRetries: 0 }), resource);
      const report = new Report(flags.report);
      const source = await openSource(file, flags.format);
      const progress = new Progress(`${resource} ← ${file === "-" ? "stdin" : file}`, source.totalSize);
      const run = new ImportRun({ resource, client, source, dryRun: flags.dryRun === true, concurrency: flags.concurrency, report, progress });

      let interrupted = false;
      const onInterrupt = (): void => {
        if (interrupted) process.exit(EXIT.INTERRUPTED);
        interrupted = true;
        progress.log("interrupted: finishing the rows in flight (Ctrl-C again to quit at once)");
        run.stop("interrupted");
      };
      process.on("SIGINT", onInterrupt);
      const summary = await run.run().finally(() => report.close());
      process.off("SIGINT", onInterrupt);

      await printOne(format, { ...summary, report: flags.report ?? null });
      if (run.stopError) process.stderr.write(describeApiError(run.stopError));
      process.stderr.write(`${sentence(summary)}\n`);
      process.exitCode = interrupted
        ? EXIT.INTERRUPTED
        : run.stopError
        ? EXIT.API_ERROR
        : summary.rejected > 0
        ? EXIT.IMPORT_REJECTED
        : EXIT.OK;
    });
}

function sentence(summary: Awaited<ReturnType<ImportRun["run"]>>): string {
  const done = summary.dry_run
    ? `${summary.valid} valid`
    : `${summary.created} created, ${summary.replayed} already imported`;
  const end = summary.stopped ? ` Stopped early: ${summary.stopped}.` : "";
  return `${summary.dry_run ? "Dry run of " : ""}${summary.rows} ${summary.resource} rows: ${done}, ${summary.rejected} rejected (${summary.seconds} s).${end}`;
}
