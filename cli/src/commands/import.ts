// `erp import <resource> <file|->`: creates (or with --upsert updates) one record per CSV or NDJSON
// row, in ordered batches, exactly once whatever happens.
import { type Command, InvalidArgumentError } from "commander";
import { resolveConnection } from "../config.ts";
import { clientOf, formatOf, globalOptions } from "../context.ts";
import { EXIT } from "../exit-codes.ts";
import { planColumns } from "../import/columns.ts";
import { Journal } from "../import/journal.ts";
import { ReferenceResolver } from "../import/references.ts";
import { RejectsFile } from "../import/rejects.ts";
import { type ImportSummary, ImportRun } from "../import/run-import.ts";
import { Progress } from "../import/progress.ts";
import { Report } from "../import/report.ts";
import { IMPORT_FORMATS, type ImportFormat, openSource } from "../import/rows.ts";
import { printOne } from "../output.ts";
import { oneOf, parseConcurrency } from "../parsers.ts";
import { describeApiError } from "../report-error.ts";
import { RESOURCE_NAMES, resourceClient, specOf } from "../resources.ts";

interface ImportFlags {
  format?: ImportFormat;
  dryRun?: boolean;
  upsert?: boolean;
  concurrency: number;
  batchSize: number;
  report?: string;
  rejects?: string;
  map: string[];
  skipColumn: string[];
  skipUnknownColumns?: boolean;
}

/** The SDK's retries of one batch: its backoff (0.5 s doubling to 8 s) adds up to about a minute. */
const BATCH_RETRIES = 10;

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export function registerImport(program: Command): void {
  program
    .command("import")
    .summary("create (or --upsert) records from a CSV or NDJSON file (or stdin), exactly once")
    .description(
      "Creates one record per row, in batches in file order (the first of two rows with the same unique value\n" +
        "wins). CSV: a header line names the fields. A header matches a field after trimming, case folding and\n" +
        'turning spaces and hyphens into _ ("Phone Number" is phone_number), by its name or an alias the API\n' +
        'declares (phone_number is phone, e_mail is email); --map "Header=field" maps any other. The header is\n' +
        "checked before anything is sent: a column that matches nothing stops the import (exit 2) naming the\n" +
        "closest field, unless --skip-column or --skip-unknown-columns leaves it out. The columns trade,\n" +
        "category, client, project (any `*_id` field without _id) may name the record, by name or external_id.\n" +
        "The id, created_at, updated_at and deleted_at columns of an export and a rejects file's error column are\n" +
        "skipped. Rows whose cells are all empty are skipped and counted. Empty cells are left out, *_id cells\n" +
        "become integers, true/false booleans, everything else is sent as text. NDJSON: one JSON object a line.\n" +
        "Exactly once: each row carries a key made from its content and its occurrence among identical rows\n" +
        "(never its batch or position), so after Ctrl-C, a crash, a dropped connection or a lost journal the same\n" +
        "command writes no row twice. A journal (under $XDG_STATE_HOME/erp/imports) spares re-sending rows that\n" +
        "went through. The import paces itself by the RateLimit headers, waits out 429s and retries other\n" +
        "failures for about a minute. A full quota, a refused token or Ctrl-C stop it; the rows not sent are\n" +
        '"not imported" (a re-run sends them), not rejects. Exit 3 when rows were rejected: --rejects writes them\n' +
        "with the file's own columns and values plus an error column, to fix and import again as they are.\n\n" +
        "EXAMPLES\n" +
        "  erp import workers staff.csv --rejects fix-me.csv\n" +
        "  erp import workers fix-me.csv            # after fixing the rows; its error column is ignored\n" +
        '  erp import workers hr-export.csv --map "Employee No=external_id" --skip-column Notes\n' +
        "  erp export projects --format csv > p.csv && erp import projects p.csv --upsert\n" +
        "  erp import clients clients.ndjson --dry-run",
    )
    .argument("<resource>", RESOURCE_NAMES.join(", "), oneOf(RESOURCE_NAMES))
    .argument("<file>", "a .csv, .ndjson or .jsonl file, or - for stdin")
    .option(
      "--format <format>",
      "csv or ndjson (default: from the extension, else the first character: { is NDJSON)",
      oneOf(IMPORT_FORMATS),
    )
    .option(
      "--dry-run",
      "check every row in order, as the real run would (duplicates in the file, the quota); nothing is written",
    )
    .option("--upsert", "rows whose external_id names a record update it instead of being refused")
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
    .option("--batch-size <n>", "rows per request (at most 500)", parseBatchSize, 500)
    .option(
      "--concurrency <n>",
      "accepted for compatibility: batches go one at a time, in file order",
      parseConcurrency,
      1,
    )
    .option("--report <file>", "write one NDJSON line per rejected row here")
    .option(
      "--rejects <file>",
      "write the rejected rows here as CSV: the file's own columns and values, plus an error column",
    )
    .action(async (resource: string, file: string, flags: ImportFlags, command: Command) => {
      const format = formatOf(command);
      const connection = resolveConnection(globalOptions(command));
      const spec = specOf(resource);
      const source = await openSource(file, flags.format);
      const plan = source.header
        ? planColumns(spec, source.header, {
            map: flags.map,
            skip: flags.skipColumn,
            skipUnknown: flags.skipUnknownColumns === true,
          })
        : undefined;
      const report = new Report(flags.report);
      const rejects = new RejectsFile(flags.rejects, source.header);
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
      const run = new ImportRun({
        resource,
        spec,
        source,
        report,
        rejects,
        progress,
        client: resourceClient(erp, resource),
        columns: plan?.columns,
        dryRun: flags.dryRun === true,
        upsert: flags.upsert === true,
        batchSize: flags.batchSize,
        journal: Journal.for(connection.baseUrl, connection.token, resource),
        references: new ReferenceResolver(erp, spec),
        requests: () => requests,
        quotaLimited: async () => {
          const quota = (
            (await erp.usage()).quotas as Record<string, { limit: number | null } | undefined>
          )[resource];
          return quota !== undefined && quota.limit !== null;
        },
      });

      let interrupted = false;
      const onInterrupt = (): void => {
        if (interrupted) process.exit(EXIT.INTERRUPTED);
        interrupted = true;
        progress.log(
          "interrupted: finishing the batch in flight (Ctrl-C again to quit at once: nothing is written twice either way)",
        );
        run.stop("interrupted");
      };
      process.on("SIGINT", onInterrupt);
      const summary = await run.run().finally(() => {
        rejects.close();
        return report.close();
      });
      process.off("SIGINT", onInterrupt);

      await printOne(format, { ...summary, report: flags.report ?? null });
      if (run.stopError) process.stderr.write(describeApiError(run.stopError));
      if (run.quotaFull && !summary.dry_run)
        process.stderr.write(
          `The ${resource} quota of your plan is full: the rest of the file was not sent. Delete records or raise the quota, then run the same command again.\n`,
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

function sentence(summary: ImportSummary): string {
  const done = summary.dry_run
    ? `${summary.valid} valid`
    : `${summary.created} created, ${summary.updated} updated, ${summary.unchanged} unchanged, ${summary.already_imported} already imported`;
  const notImported =
    summary.not_imported > 0 ? `, ${summary.not_imported} not imported (a re-run sends them)` : "";
  const blank =
    summary.blank > 0 ? `; ${summary.blank} blank row${summary.blank > 1 ? "s" : ""} skipped` : "";
  const end = summary.stopped ? ` Stopped early: ${summary.stopped}.` : "";
  return (
    `${summary.dry_run ? "Dry run of " : ""}${summary.rows} ${summary.resource} rows: ${done}, ${summary.rejected} rejected${notImported}${blank} ` +
    `(${summary.seconds} s, ${summary.rows_per_second} rows/s, ${summary.requests} requests).${end}`
  );
}

function parseBatchSize(value: string): number {
  const size = Number(value);
  if (!Number.isInteger(size) || size < 1 || size > 500)
    throw new InvalidArgumentError("a whole number from 1 to 500");
  return size;
}
