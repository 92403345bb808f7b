// `erp import` of one file (FileImport; the SDK's engine is its ImportRun): the file's rows read as
// items and handed to the engine (docs/bulk-work.md: batches in file order, item keys, pacing,
// retries, the journal), its results turned into the summary, the progress bar, the report and the
// rejects file. Blank rows, repeated rows and unique values given twice are the file's business and
// told here (a duplicate names the row and line that gave the value first). A row with cells the
// CLI cannot read is never written: the engine checks the rest of it in a dry-run, so its report
// lists the server's objections together with the CLI's. A full quota, a refused token, Ctrl-C or
// a file that cannot be read further stop the import: the rows not sent are "not imported", not
// rejects, and a file is read to its end to count them.
import {
  type ErpError,
  type ImportMode,
  type ImportRead,
  type ImportResult,
  type ImportRun as EngineRun,
  rowBody,
  rowContent,
} from "@erp/sdk";
import { nestCustomFields } from "../custom-fields.ts";
import type { AnyResourceClient } from "../resources.ts";
import type { Journal } from "./journal.ts";
import type { Progress } from "./progress.ts";
import type { CreatedLookup, ReferenceResolver } from "./references.ts";
import type { RejectsSink } from "./rejects.ts";
import { RepeatedRows, type RowPlace, UniqueValues } from "./repeats.ts";
import type { Rejection, Report } from "./report.ts";
import type { RowBody, RowReader } from "./row-body.ts";
import type { ImportSource, Row } from "./rows.ts";
import type { UpdateTarget } from "./update-target.ts";
import { isEmptyCell } from "./values.ts";
import { UsageError } from "../usage-error.ts";

/** Members of an NDJSON row that an export or a rejects file writes and no create accepts. */
const READ_ONLY = ["id", "created_at", "updated_at", "deleted_at", "error"];

export interface FileJob {
  resource: string;
  /** The fields whose values are unique per company (a second row with one is named by the first). */
  unique: readonly string[];
  client: AnyResourceClient;
  source: ImportSource;
  /** Reads a row's cells as its fields (from the header's columns); undefined for NDJSON. */
  reader: RowReader | undefined;
  dryRun: boolean;
  /** Update records by external_id instead of refusing them (on_conflict: update). */
  upsert: boolean;
  /** Leave out rows equal in every cell to an earlier row (--skip-repeated). */
  skipRepeated: boolean;
  /** `--update`: each row updates the record its id names, with the cells that differ from it. */
  update?: UpdateTarget;
  batchSize: number;
  /** Batches in flight at once at most (--concurrency); only batches that cannot meet each other overlap. */
  concurrency: number;
  journal: Journal;
  references: ReferenceResolver;
  report: Report;
  rejects: RejectsSink;
  progress: Progress;
  /** Requests sent so far (the SDK's retries, and the lookups of reference names, included). */
  requests: () => number;
}

/** What `erp import` prints at the end (snake_case, as the API's own JSON). */
export interface FileSummary {
  resource: string;
  format: string;
  dry_run: boolean;
  /** Rows read before the import ended (blank ones not counted): the sum of the counts below but blank and repeated. */
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
  /** Rows an earlier run had already imported (known to the journal, or replayed by their key). */
  already_imported: number;
  /** Dry run: rows that would be written. */
  valid: number;
  rejected: number;
  /** Rows read but not sent because the import stopped; a re-run sends them. */
  not_imported: number;
  /** Empty lines and rows whose cells were all empty, skipped. */
  blank: number;
  /** Rows equal in every cell to an earlier row (imported each time unless --skip-repeated). */
  repeated: number;
  /** Repeated rows left out (--skip-repeated). */
  skipped_repeated: number;
  /**
   * Trades and equipment categories created for rows that named them (--create-missing); in a
   * dry-run, the ones the real run would create (id null).
   */
  created_lookups: CreatedLookup[];
  /** Requests sent, retries included. */
  requests: number;
  /** Why the import ended before the last row, if it did. */
  stopped: string | null;
  seconds: number;
  rows_per_second: number;
}

/** A row handed to the engine, with what the CLI read of its cells. */
interface Fed {
  row: Row;
  read?: RowBody;
}

/** The values a row gives its fields: what its cells read as, or an NDJSON row's members. */
const valuesOf = ({ row, read }: Fed): Record<string, unknown> => read?.body ?? row.object ?? {};

/** Rejections shown on stderr before the rest are left to --report / --rejects. */
const SHOWN_REJECTIONS = 10;

export class FileImport {
  readonly #job: FileJob;
  readonly #summary: FileSummary;
  readonly #mode: ImportMode;
  readonly #repeats = new RepeatedRows();
  readonly #unique: UniqueValues;
  #engine: EngineRun<Fed> | undefined;
  #consumed = 0;
  /** Rows handed to the engine, and the ones it has answered. */
  #fed = 0;
  #answered = 0;
  /** Rows of empty cells read so far (empty lines are the source's count). */
  #blankRows = 0;
  #started = Date.now();
  /** The error that stopped the import, when it was the API's (exit 1). */
  stopError: ErpError | undefined;
  /** True when the plan's quota stopped the import (exit 1, with its own message). */
  quotaFull = false;
  /** Why the file could not be read to its end (a workbook past a limit, or unreadable): exit 2. */
  sourceError: UsageError | undefined;

  constructor(job: FileJob) {
    this.#job = job;
    this.#unique = new UniqueValues(job.unique);
    this.#mode = job.update ? "update" : job.upsert ? "upsert" : "create";
    this.#summary = {
      resource: job.resource,
      format: job.source.format,
      dry_run: job.dryRun,
      rows: 0,
      created: 0,
      updated: 0,
      unchanged: 0,
      already_imported: 0,
      valid: 0,
      rejected: 0,
      not_imported: 0,
      blank: 0,
      repeated: 0,
      skipped_repeated: 0,
      created_lookups: job.references.created,
      requests: 0,
      stopped: null,
      seconds: 0,
      rows_per_second: 0,
    };
  }

  /** Stops before the next batch; the batches in flight finish. */
  stop(reason: string): void {
    this.#summary.stopped ??= reason;
    this.#engine?.stop(reason);
  }

  /** The summary as it stands; the rows the engine has and has not answered yet count as not imported. */
  get summary(): FileSummary {
    this.#counts();
    const seconds = (Date.now() - this.#started) / 1000;
    const flying = this.#fed - this.#answered;
    return {
      ...this.#summary,
      rows: this.#summary.rows + flying,
      not_imported: this.#summary.not_imported + flying,
      blank: this.#blankRows + this.#job.source.blankLines(),
      requests: this.#job.requests(),
      seconds: Math.round(seconds * 10) / 10,
      rows_per_second: Math.round(this.#written() / Math.max(seconds, 0.001)),
    };
  }

  async run(): Promise<FileSummary> {
    const started = Date.now();
    this.#started = started;
    const rows = this.#job.source.rows[Symbol.asyncIterator]();
    const job = this.#job;
    this.#engine = job.client.import(this.#feed(rows), {
      mode: this.#mode,
      dryRun: job.dryRun,
      batchSize: job.batchSize,
      concurrency: job.concurrency,
      journal: job.journal,
      reader: (fed) => this.#read(fed),
      onRateLimit: (waitMs) =>
        job.progress.log(`rate limit reached; waiting ${Math.ceil(waitMs / 1000)} s`),
    });
    if (this.#summary.stopped !== null) this.#engine.stop(this.#summary.stopped);
    for await (const result of this.#engine) this.#record(result);
    const { stopped, error } = this.#engine.summary;
    if (stopped !== null) {
      this.stopError ??= error;
      this.#summary.stopped = this.#stopReason(stopped, error);
      await this.#countRest(rows);
    }
    job.progress.finish(this.#counts());
    const seconds = (Date.now() - started) / 1000;
    this.#summary.seconds = Math.round(seconds * 10) / 10;
    const written = this.#written();
    this.#summary.rows_per_second = seconds > 0 ? Math.round(written / seconds) : written;
    this.#summary.requests = job.requests();
    this.#summary.blank = this.#blankRows + job.source.blankLines();
    return this.#summary;
  }

  /**
   * The file's rows for the engine, blank ones counted and left out, repeated ones reported (and
   * left out with --skip-repeated). It never closes the file: once the engine stops, the rest is
   * read here, to account for every line.
   */
  async *#feed(rows: AsyncIterator<Row>): AsyncGenerator<Fed> {
    for (;;) {
      const next = await this.#next(rows);
      if (next.done) return;
      const row = next.value;
      this.#consumed += row.size;
      const fed = this.#prepare(row);
      if (!fed) {
        this.#progress();
        continue;
      }
      this.#fed++;
      yield fed;
    }
  }

  /** The next row; a file that cannot be read further (a workbook past a limit) ends the rows there. */
  async #next(rows: AsyncIterator<Row>): Promise<IteratorResult<Row>> {
    try {
      return await rows.next();
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      this.sourceError = error;
      this.stop("the file cannot be read further");
      return { done: true, value: undefined };
    }
  }

  /** The row as the engine is to have it, or nothing: blank, or skipped as repeated. */
  #prepare(row: Row): Fed | undefined {
    if (row.error !== undefined) return { row };
    let read: RowBody | undefined;
    if (row.object) {
      if (Object.keys(row.object).every((member) => READ_ONLY.includes(member))) {
        this.#blankRows++;
        return undefined;
      }
    } else {
      read = this.#job.reader!.read(row.cells ?? []);
      if (!read) {
        this.#blankRows++;
        return undefined;
      }
    }
    const earlier = this.#repeats.earlier(row);
    if (earlier) {
      this.#summary.repeated++;
      const skipped = this.#job.skipRepeated;
      this.#job.report.add({
        row: row.row,
        line: row.line,
        code: "repeated_row",
        repeats: earlier,
        skipped,
      });
      if (skipped) {
        this.#summary.skipped_repeated++;
        return undefined;
      }
    }
    const fed = read ? { row, read } : { row };
    this.#unique.note(row, valuesOf(fed));
    return fed;
  }

  /**
   * What the engine makes the row's key of (the cells as the file gives them, or an NDJSON line's
   * members, as the SDK takes an object), and its item once the journal does not know it: its
   * fields, with reference names resolved, and the cells the CLI cannot read.
   */
  #read({ row, read }: Fed): ImportRead {
    if (row.error !== undefined) return { refused: { code: "invalid_row", detail: row.error } };
    const { update } = this.#job;
    if (row.object) {
      const object: Record<string, unknown> = {};
      for (const [member, value] of Object.entries(row.object))
        if (member !== "error") object[member] = value;
      const given = update ? update.object(object) : object;
      return {
        content: rowContent(given, this.#mode),
        item: () => ({ body: rowBody(given, this.#mode) }),
      };
    }
    const cells = read!;
    const target = update?.target(row);
    return {
      content: target ? { ...cells.content, target } : cells.content,
      item: () => {
        const errors = cells.errors;
        const flat = target ? { ...target, ...update!.emptied(row), ...cells.body } : cells.body;
        const body = nestCustomFields(flat);
        if (Object.keys(cells.names).length === 0)
          return errors.length > 0 ? { body, errors } : { body };
        // Names of referenced records: their ids looked up (each collection read once).
        return this.#job.references.resolve(cells.names).then((references) => {
          const all = [...errors, ...references.errors];
          const resolved = { ...body, ...references.ids };
          return all.length > 0 ? { body: resolved, errors: all } : { body: resolved };
        });
      },
    };
  }

  #record({ row: fed, status, error }: ImportResult<Fed>): void {
    this.#answered++;
    const { row } = fed;
    const { dryRun } = this.#job;
    if (status === "rejected") {
      const duplicate = error && this.#duplicateOf(fed, error);
      this.#reject(row, {
        row: row.row,
        line: row.line,
        status: error?.status ?? null,
        code: error?.code ?? "rejected",
        detail: duplicate?.detail ?? error?.detail ?? "",
        errors: error?.errors ?? [],
        ...(duplicate ? { duplicate_of: duplicate.first } : {}),
      });
    } else if (status === "not_imported") {
      if (error?.code === "quota_exceeded") this.quotaFull = true;
      this.#summary.not_imported++;
    } else if (status === "unchanged") this.#summary.unchanged++;
    else if (dryRun) this.#summary.valid++;
    else if (status === "replayed") this.#summary.already_imported++;
    else this.#summary[status]++;
    this.#progress();
  }

  /**
   * A value the file gave an earlier row too, told by that row and line: the server can only name
   * "item 16 of this batch", or the record the first row became.
   */
  #duplicateOf(
    fed: Fed,
    error: { detail: string; errors: readonly { field: string; code: string }[] },
  ): { detail: string; first: RowPlace } | undefined {
    for (const { field, code } of error.errors) {
      if (code !== "unique_violation") continue;
      const first = this.#unique.earlier(field, fed.row, valuesOf(fed));
      if (!first) continue;
      const place = `row ${first.row} (line ${first.line}) of this file`;
      const inBatch =
        / is already used by (?:item \d+ of this batch|a record an earlier batch of this dry-run creates)\.$/;
      const detail = inBatch.test(error.detail)
        ? error.detail.replace(inBatch, ` is already given by ${place}.`)
        : `${error.detail} ${place[0]!.toUpperCase()}${place.slice(1)} gives it first.`;
      return { detail, first };
    }
    return undefined;
  }

  /** The summary's sentence for why the engine stopped. */
  #stopReason(stopped: string, error: ErpError | undefined): string {
    if (stopped === "quota_exceeded")
      return (
        `the ${this.#job.resource} quota of your plan is full: delete records or raise the ` +
        `quota, then re-run the same command to import the rest`
      );
    if (stopped !== "api_error" || !error) return stopped;
    return stopsEverything(error)
      ? `the API refused the import (${error.status} ${error.code})`
      : `the API kept failing (${error.status ?? ""} ${error.code}); re-run the same command to resume`.replace(
          "( ",
          "(",
        );
  }

  /**
   * After a stop, the rest of a file is read, unparsed, so the summary accounts for every line;
   * stdin may never end.
   */
  async #countRest(rows: AsyncIterator<Row>): Promise<void> {
    for (;;) {
      const next = await rows.next();
      if (next.done) return;
      if (this.#job.source.totalSize === undefined) {
        this.#summary.not_imported++;
        return;
      }
      if (isBlank(next.value)) this.#blankRows++;
      else this.#summary.not_imported++;
    }
  }

  #written(): number {
    const { created, updated, unchanged, valid } = this.#summary;
    return created + updated + unchanged + valid;
  }

  #reject(row: Row, rejection: Rejection): void {
    this.#summary.rejected++;
    this.#job.report.add(rejection);
    const fields = rejection.errors.map((e) => `${e.field}: ${e.message}`).join("; ");
    const error = `${rejection.code}: ${rejection.detail}${fields ? ` (${fields})` : ""}`;
    this.#job.rejects.add(row, error);
    const { rejected } = this.#summary;
    if (rejected <= SHOWN_REJECTIONS) {
      const status = rejection.status === null ? "" : `${rejection.status} `;
      this.#job.progress.log(`row ${rejection.row} (line ${rejection.line}): ${status}${error}`);
    } else if (rejected === SHOWN_REJECTIONS + 1) {
      this.#job.progress.log("more rows were rejected; --report and --rejects list every one");
    }
  }

  #progress(): void {
    this.#job.progress.update(this.#counts());
  }

  #counts() {
    const { already_imported, rejected, not_imported, skipped_repeated } = this.#summary;
    this.#summary.rows =
      this.#written() + already_imported + rejected + not_imported + skipped_repeated;
    return {
      done: this.#summary.rows,
      rejected,
      consumed: this.#consumed + this.#job.source.overhead,
    };
  }
}

const isBlank = (row: Row): boolean =>
  row.error === undefined &&
  (row.cells
    ? row.cells.every(isEmptyCell)
    : Object.keys(row.object ?? {}).every((member) => READ_ONLY.includes(member)));

/** Errors about the token, the plan or the URL rather than the rows. */
function stopsEverything(error: ErpError): boolean {
  return (
    error.status === 401 ||
    error.status === 405 ||
    (error.status === 402 && error.code === "feature_off") ||
    (error.status === 404 && error.code === "route_not_found")
  );
}
