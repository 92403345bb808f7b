// How an import ends: its summary in one sentence on stderr, and its exit code (docs/cli.md).
import { EXIT, type ExitCode } from "../exit-codes.ts";
import type { FileSummary } from "./file-import.ts";

/** Every row and blank line of the source in one sentence: each row is in one of the counts before the first ";". */
export function sentence(summary: FileSummary): string {
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
  const created = summary.created_lookups.map(({ column, name }) => `${column} "${name}"`);
  const lookups =
    created.length > 0
      ? `; ${summary.dry_run ? "would create" : "created"} ${created.join(", ")}`
      : "";
  const end = summary.stopped ? ` Stopped early: ${summary.stopped}.` : "";
  return (
    `${summary.dry_run ? "Dry run of " : ""}${summary.rows} ${summary.resource} rows: ${done}, ` +
    `${summary.rejected} rejected${notImported}${skipped}${repeated}${blank}${lookups} ` +
    `(${summary.seconds} s, ${summary.rows_per_second} rows/s, ${summary.requests} requests).${end}`
  );
}

/** What ended an import, besides its counts. */
export interface Outcome {
  summary: FileSummary;
  /** Ctrl-C stopped it. */
  interrupted: boolean;
  /** The file could not be read to its end (a workbook past a limit, or unreadable). */
  unreadable: boolean;
  /** The API stopped it (a refused token, an API that kept failing). */
  apiStopped: boolean;
  /** The plan's quota is full (a dry-run only counts the rows past it). */
  quotaFull: boolean;
}

/** The exit code, by the first that applies: Ctrl-C 130, the file 2, the API or the quota 1, rejects 3. */
export function exitCodeOf(outcome: Outcome): ExitCode {
  if (outcome.interrupted) return EXIT.INTERRUPTED;
  if (outcome.unreadable) return EXIT.USAGE;
  if (outcome.apiStopped || (outcome.quotaFull && !outcome.summary.dry_run)) return EXIT.API_ERROR;
  return outcome.summary.rejected > 0 ? EXIT.IMPORT_REJECTED : EXIT.OK;
}
