// Sends the rows of an import source in batches (POST /v1/{resource}/batch), in file order (the first
// of two rows with the same unique value always wins), reading and preparing the next batch while
// others are in flight. Every row carries its item key (row-key.ts), so
// nothing is written twice whatever happens between runs; the journal only spares re-sending what
// went through. Retries are the SDK's (network errors, 5xx, 409 idempotency_in_progress); a 429 is
// waited out however long it says, and the import paces itself by the RateLimit headers. A full
// quota, a refused token or Ctrl-C stop it: the rows not sent are "not imported", not rejects.
// A row with cells the CLI cannot read is never sent to be written: the rest of it goes in a dry-run
// batch of its own, so its report lists the server's objections together with the CLI's.
import {
  type BatchOptions,
  type BatchResult,
  type CollectionSpec,
  ErpError,
  RateLimitError,
  retryDelayMs,
} from "@erp/sdk";
import type { AnyResourceClient } from "../resources.ts";
import type { Journal } from "./journal.ts";
import type { Progress } from "./progress.ts";
import type { RecordDiff } from "./record-diff.ts";
import type { FieldError, ReferenceResolver } from "./references.ts";
import type { RejectsFile } from "./rejects.ts";
import { RepeatedRows } from "./repeats.ts";
import type { Rejection, Report } from "./report.ts";
import type { RowReader } from "./row-body.ts";
import { RowKeys } from "./row-key.ts";
import type { ImportSource, Row } from "./rows.ts";
import { isEmptyCell } from "./values.ts";

/** The API takes up to 500 items a batch and 1 MiB a body; stay well inside both. */
const MAX_BATCH_ROWS = 500;
const MAX_BATCH_BYTES = 512 * 1024;
/** Members of an NDJSON row that an export writes and no create accepts. */
const READ_ONLY = ["id", "created_at", "updated_at", "deleted_at", "error"];

/** A unique value as the server compares it (docs/concepts.md): trailing spaces do not count. */
function uniqueKeyOf(value: string): string {
  let end = value.length;
  while (end > 0 && value.charCodeAt(end - 1) === 0x20) end--;
  return value.slice(0, end);
}

export interface ImportJob {
  resource: string;
  spec: CollectionSpec;
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
  diff?: RecordDiff;
  batchSize: number;
  /** Batches in flight at once at most (--concurrency); only batches that cannot meet each other overlap. */
  concurrency: number;
  journal: Journal;
  references: ReferenceResolver;
  report: Report;
  rejects: RejectsFile;
  progress: Progress;
  /** Requests sent so far (the SDK's retries, and the lookups of reference names, included). */
  requests: () => number;
  /** Whether the plan limits how many records of the resource the company may have. */
  quotaLimited: () => Promise<boolean>;
}

export interface ImportSummary {
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
  /** Requests sent, retries included. */
  requests: number;
  /** Why the import ended before the last row, if it did. */
  stopped: string | null;
  seconds: number;
  rows_per_second: number;
}

interface Pending {
  row: Row;
  body: Record<string, unknown>;
  key: string;
}

/** A row refused before sending: with the rest of its body when the server is to check that too. */
interface Refused {
  row: Row;
  rejection: Rejection;
  body?: Record<string, unknown>;
}

/** Rows read into one batch, and the rows refused before sending it (reported with its results, in row order). */
interface Batch {
  items: Pending[];
  bytes: number;
  refused: Refused[];
  /** Bytes of the refused rows' bodies, for their dry-run. */
  checkBytes: number;
  /** Its unique values, once asked for. */
  unique?: Set<string>;
}

/** Rejections shown on stderr before the rest are left to --report / --rejects. */
const SHOWN_REJECTIONS = 10;

const emptyBatch = (): Batch => ({ items: [], bytes: 0, refused: [], checkBytes: 0 });

export class ImportRun {
  readonly #job: ImportJob;
  readonly #summary: ImportSummary;
  readonly #keys: RowKeys;
  #consumed = 0;
  /** Batches sent and not yet answered, oldest first, each with the check of its refused rows. */
  #flying: {
    batch: Batch;
    answer: Promise<{ result?: BatchResult; error?: unknown }>;
    check: Promise<BatchResult | undefined>;
  }[] = [];
  readonly #repeats = new RepeatedRows();
  /** Rows of empty cells read so far (empty lines are the source's count). */
  #blankRows = 0;
  #started = Date.now();
  #unlimited: Promise<boolean> | undefined;
  /** Dry-run: what the batches so far would write, told to the next one (the API's `preceding`). */
  readonly #preceding = { created: 0, unique: new Map<string, Set<string>>() };
  /** The error that stopped the import, when it was the API's (exit 1). */
  stopError: ErpError | undefined;
  /** True when the plan's quota stopped the import (exit 1, with its own message). */
  quotaFull = false;

  constructor(job: ImportJob) {
    this.#job = job;
    this.#keys = new RowKeys(job.resource, job.diff ? "update" : job.upsert ? "upsert" : "create");
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
      requests: 0,
      stopped: null,
      seconds: 0,
      rows_per_second: 0,
    };
  }

  /** Stops before the next batch; the batch in flight finishes. */
  stop(reason: string): void {
    this.#summary.stopped ??= reason;
  }

  /** The summary as it stands; the rows of the batches in flight are counted as not imported. */
  get summary(): ImportSummary {
    this.#counts();
    const seconds = (Date.now() - this.#started) / 1000;
    const flying = this.#flying.reduce((rows, { batch }) => rows + batch.items.length, 0);
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

  async run(): Promise<ImportSummary> {
    const started = Date.now();
    this.#started = started;
    const limit = Math.min(MAX_BATCH_ROWS, this.#job.batchSize);
    let batch = emptyBatch();
    for await (const row of this.#job.source.rows) {
      if (this.#summary.stopped !== null) {
        // A file is read to its end, unparsed, so the summary accounts for every line; stdin may never end.
        if (this.#job.source.totalSize === undefined) {
          this.#notImported(1);
          break;
        }
        if (isBlank(row)) this.#blankRows++;
        else this.#notImported(1);
        continue;
      }
      this.#consumed += row.size;
      const pending = await this.#prepare(row, batch);
      if (pending) {
        const size = jsonSize(pending.body);
        if (batch.items.length > 0 && batch.bytes + size > MAX_BATCH_BYTES) {
          await this.#dispatch(batch);
          batch = emptyBatch();
        }
        batch.items.push(pending);
        batch.bytes += size;
      }
      // Refused rows count too: their dry-run is a batch of its own, under the same limits, and a
      // file whose every row is refused must not pile up in memory.
      if (
        batch.items.length + batch.refused.length >= limit ||
        batch.checkBytes > MAX_BATCH_BYTES
      ) {
        await this.#dispatch(batch);
        batch = emptyBatch();
      }
    }
    await this.#dispatch(batch);
    await this.#land();
    this.#job.progress.finish(this.#counts());
    const seconds = (Date.now() - started) / 1000;
    this.#summary.seconds = Math.round(seconds * 10) / 10;
    const written = this.#written();
    this.#summary.rows_per_second = seconds > 0 ? Math.round(written / seconds) : written;
    this.#summary.requests = this.#job.requests();
    this.#summary.blank = this.#blankRows + this.#job.source.blankLines();
    return this.#summary;
  }

  /** The row as a batch item (key, body), or nothing: blank, skipped as repeated, already imported, or refused here. */
  async #prepare(row: Row, batch: Batch): Promise<Pending | undefined> {
    const refuse = (
      code: string,
      detail: string,
      errors: FieldError[] = [],
      body?: Record<string, unknown>,
    ): undefined => {
      const rejection = { row: row.row, line: row.line, status: null, code, detail, errors };
      batch.refused.push(body ? { row, rejection, body } : { row, rejection });
      if (body) batch.checkBytes += jsonSize(body);
      return undefined;
    };
    if (row.error !== undefined) return refuse("invalid_row", row.error);
    const read = this.#read(row);
    if (!read) {
      this.#blankRows++;
      return undefined;
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
        this.#progress();
        return undefined;
      }
    }
    const target = this.#job.diff?.target(row);
    const key = this.#keys.next(target ? { ...read.content, target } : read.content);
    if (!this.#job.dryRun && this.#job.journal.has(key)) {
      this.#summary.already_imported++;
      this.#progress();
      return undefined;
    }
    const errors = [...read.errors];
    let body = target ? { ...target, ...this.#job.diff!.emptied(row), ...read.body } : read.body;
    if (Object.keys(read.names).length > 0) {
      const references = await this.#job.references.resolve(read.names);
      body = { ...body, ...references.ids };
      errors.push(...references.errors);
    }
    if (errors.length > 0)
      return refuse("validation_failed", problems(errors.length), errors, body);
    return { row, key, body };
  }

  /**
   * The row's content (what its key is made of, as the file gives it), its body and reference names,
   * and the cells the CLI cannot read; undefined for a blank row.
   */
  #read(row: Row):
    | {
        content: Record<string, unknown>;
        body: Record<string, unknown>;
        names: Record<string, string>;
        errors: FieldError[];
      }
    | undefined {
    if (row.object) {
      const values: Record<string, unknown> = {};
      for (const [member, value] of Object.entries(row.object))
        if (!READ_ONLY.includes(member)) values[member] = value;
      if (Object.keys(values).length === 0) return undefined;
      return { content: { values, names: {} }, body: values, names: {}, errors: [] };
    }
    return this.#job.reader!.read(row.cells ?? []);
  }

  /**
   * Sends a batch while the next is read. A batch goes once the ones before it have answered,
   * unless it cannot meet them: no unique value in common (so no order between their rows decides
   * anything), no quota to share out, no dry-run to carry forward. Then up to --concurrency (3 by
   * default) are in flight at once (the database writes one while the server decides another:
   * measured, three import a tenth faster than two on 2 cores, four no faster), and their answers
   * are still taken in file order. The rows refused here go to a dry-run of their own alongside.
   */
  async #dispatch(batch: Batch): Promise<void> {
    if (this.#flying.length > 0 && !(await this.#independent(batch))) await this.#land();
    while (this.#flying.length >= this.#job.concurrency) await this.#land();
    const going = this.#summary.stopped === null;
    const answer =
      batch.items.length > 0 && going
        ? this.#narrowed(batch).then(
            (result) => ({ result }),
            (error: unknown) => ({ error }),
          )
        : Promise.resolve({});
    const checked = batch.refused.flatMap((refused) => (refused.body ? [refused.body] : []));
    const check =
      checked.length > 0 && going
        ? this.#send(checked, { dryRun: true, ...this.#operation() }).catch(() => undefined)
        : Promise.resolve(undefined);
    this.#flying.push({ batch, answer, check });
  }

  /** Takes the answers of every batch in flight, in file order. */
  async #land(): Promise<void> {
    while (this.#flying.length > 0) {
      const { batch, answer, check } = this.#flying[0]!;
      await this.#settle(batch, await answer, await check);
      this.#flying.shift();
    }
  }

  async #independent(batch: Batch): Promise<boolean> {
    if (this.#job.dryRun || !(await this.#quotaFree())) return false;
    const taken = this.#flying.map((flight) => this.#uniqueValues(flight.batch));
    for (const value of this.#uniqueValues(batch))
      if (taken.some((values) => values.has(value))) return false;
    return true;
  }

  /**
   * The values a batch's rows give the resource's unique fields (`field\0value`), as the server
   * compares them: trailing spaces do not count.
   */
  #uniqueValues(batch: Batch): Set<string> {
    if (!batch.unique) {
      batch.unique = new Set();
      for (const field of this.#job.spec.import.unique) {
        for (const { body } of batch.items) {
          const value = body[field];
          if (typeof value === "string") batch.unique.add(`${field}\u0000${uniqueKeyOf(value)}`);
        }
      }
      // Two batches that update one record are diffed and written one after the other.
      if (this.#job.diff)
        for (const { body } of batch.items) batch.unique.add(`id\u0000${String(body.id)}`);
    }
    return batch.unique;
  }

  /** Whether no plan quota limits how many records of the resource the company may have (asked once). */
  #quotaFree(): Promise<boolean> {
    this.#unlimited ??= this.#job.quotaLimited().then(
      (limited) => !limited,
      () => false,
    );
    return this.#unlimited;
  }

  async #settle(
    batch: Batch,
    answer: { result?: BatchResult; error?: unknown },
    check: BatchResult | undefined,
  ): Promise<void> {
    let result = answer.result;
    if (answer.error !== undefined) {
      const error = answer.error;
      if (!(error instanceof ErpError)) throw error;
      this.stopError ??= error;
      this.stop(
        stopsEverything(error)
          ? `the API refused the import (${error.status} ${error.code})`
          : `the API kept failing (${error.status ?? ""} ${error.code}); re-run the same command to resume`.replace(
              "( ",
              "(",
            ),
      );
      result = undefined;
    }
    let checked = 0;
    const rejections = batch.refused.map((refused) => ({
      row: refused.row,
      rejection: refused.body
        ? withServerChecks(refused.rejection, check?.results, checked++)
        : refused.rejection,
    }));
    if (!result) this.#notImported(batch.items.length);
    else {
      const done: string[] = [];
      for (const item of result.results) {
        const pending = batch.items[item.index]!;
        if (item.error?.code === "quota_exceeded") {
          this.quotaFull = true;
          this.#notImported(1);
        } else if (item.error) {
          rejections.push({
            row: pending.row,
            rejection: {
              row: pending.row.row,
              line: pending.row.line,
              status: item.status,
              code: item.error.code,
              detail: item.error.detail,
              errors: item.error.errors ?? [],
            },
          });
        } else {
          done.push(pending.key);
          this.#count(item, pending);
        }
      }
      if (!this.#job.dryRun) this.#job.journal.add(done);
    }
    for (const { row, rejection } of rejections.sort((a, b) => a.row.row - b.row.row))
      this.#reject(row, rejection);
    this.#progress();
    if (this.quotaFull && !this.#job.dryRun) {
      this.stop(
        `the ${this.#job.resource} quota of your plan is full: delete records or raise the ` +
          `quota, then re-run the same command to import the rest`,
      );
    }
  }

  /** An update import's batch goes with only the cells that differ; a row that differs in nothing is unchanged. */
  async #narrowed(batch: Batch): Promise<BatchResult | undefined> {
    if (this.#job.diff) {
      const unchanged = await this.#job.diff.narrow(batch.items);
      this.#summary.unchanged += unchanged.size;
      batch.items = batch.items.filter((_, index) => !unchanged.has(index));
      if (batch.items.length === 0) return undefined;
    }
    return this.#post(batch.items);
  }

  /** The batch's answer: the SDK retries what may not have run; a 429 is waited out however long it says. */
  #post(items: readonly Pending[]): Promise<BatchResult> {
    const { dryRun } = this.#job;
    return this.#send(
      items.map((pending) => pending.body),
      {
        dryRun,
        ...this.#operation(),
        itemKeys: items.map((pending) => pending.key),
        ...(dryRun ? { preceding: this.#precedingFor(items) } : {}),
      },
    );
  }

  /** Updates by id, upserts by external_id, or creates. */
  #operation(): Pick<BatchOptions, "operation" | "onConflict"> {
    if (this.#job.diff) return { operation: "update" };
    return { onConflict: this.#job.upsert ? "update" : "error" };
  }

  async #send(bodies: Record<string, unknown>[], options: BatchOptions): Promise<BatchResult> {
    for (;;) {
      try {
        const answer = await this.#job.client.batch(bodies, options).withResponse();
        await this.#pace(answer.response.headers);
        return answer.data;
      } catch (error) {
        if (!(error instanceof RateLimitError)) throw error;
        const wait = retryDelayMs(0, error.headers) ?? 60_000;
        this.#job.progress.log(`rate limit reached; waiting ${Math.ceil(wait / 1000)} s`);
        await Bun.sleep(wait);
      }
    }
  }

  /** Dry-run: what the earlier batches would have written that this one's items use. */
  #precedingFor(items: readonly Pending[]): { created: number; unique: Record<string, string[]> } {
    const unique: Record<string, string[]> = {};
    for (const [field, taken] of this.#preceding.unique) {
      const keys = new Set(
        items.flatMap(({ body: { [field]: value } }) =>
          typeof value === "string" ? [uniqueKeyOf(value)] : [],
        ),
      );
      // A value the same but for trailing spaces is the same value to the server: tell it that one too.
      const used = [...taken].filter((value) => keys.has(uniqueKeyOf(value)));
      if (used.length > 0) unique[field] = used;
    }
    return { created: this.#preceding.created, unique };
  }

  #count(item: BatchResult["results"][number], pending: Pending): void {
    if (this.#job.dryRun) {
      this.#summary.valid++;
      if (item.action === "created") this.#preceding.created++;
      for (const field of this.#job.spec.import.unique) {
        const value = pending.body[field];
        if (typeof value !== "string") continue;
        const taken = this.#preceding.unique.get(field) ?? new Set<string>();
        this.#preceding.unique.set(field, taken.add(value));
      }
    } else if (item.replayed) this.#summary.already_imported++;
    else if (item.action === "created") this.#summary.created++;
    else if (item.action === "updated") this.#summary.updated++;
    else this.#summary.unchanged++;
  }

  /** Waits for the next rate window when the last answer said none is left. */
  async #pace(headers: Headers): Promise<void> {
    const remaining = Number(headers.get("ratelimit-remaining"));
    const reset = Number(headers.get("ratelimit-reset"));
    if (headers.has("ratelimit-remaining") && remaining <= 0 && reset > 0) {
      this.#job.progress.log(`rate limit reached; waiting ${reset} s for the next window`);
      await Bun.sleep(reset * 1000);
    }
  }

  #written(): number {
    const { created, updated, unchanged, valid } = this.#summary;
    return created + updated + unchanged + valid;
  }

  #notImported(rows: number): void {
    this.#summary.not_imported += rows;
  }

  #reject(row: Row, rejection: Rejection): void {
    this.#summary.rejected++;
    this.#job.report.add(rejection);
    const fields = rejection.errors.map((e) => `${e.field}: ${e.message}`).join("; ");
    const error = `${rejection.code}: ${rejection.detail}${fields ? ` (${fields})` : ""}`;
    if (row.cells) this.#job.rejects.addCells(row.cells, error);
    else this.#job.rejects.addObject(row.object ?? {}, error);
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

const problems = (count: number): string =>
  count === 1 ? "1 field has a problem" : `${count} fields have problems`;

/**
 * A row the CLI refused, with the server's objections to the rest of it (its dry-run result, by
 * `index` among the batch's rows refused with a body): the fields the CLI refused are not the
 * server's to judge (left out, they may read as missing), and a full quota is no fault of the row.
 */
function withServerChecks(
  rejection: Rejection,
  results: BatchResult["results"] | undefined,
  index: number,
): Rejection {
  const error = results?.find((result) => result.index === index)?.error;
  if (!error || error.code === "quota_exceeded") return rejection;
  const refused = new Set(rejection.errors.map((e) => e.field));
  const server = (error.errors ?? [{ field: "", code: error.code, message: error.detail }]).filter(
    (e) => !refused.has(e.field) && !refused.has(e.field.replace(/_id$/, "")),
  );
  const errors = [...rejection.errors, ...server];
  return { ...rejection, detail: problems(errors.length), errors };
}

/** Bytes a body takes as JSON, without writing it: plain text counts its length, anything else is measured. */
function jsonSize(body: Readonly<Record<string, unknown>>): number {
  let size = 2;
  for (const [field, value] of Object.entries(body)) {
    const plain = typeof value === "string" && !/[^\x20-\x7e]|["\\]/.test(value);
    size +=
      field.length +
      4 +
      (plain ? (value as string).length + 2 : Buffer.byteLength(JSON.stringify(value)));
  }
  return size;
}

/** Errors about the token, the plan or the URL rather than the rows. */
function stopsEverything(error: ErpError): boolean {
  return (
    error.status === 401 ||
    error.status === 405 ||
    (error.status === 402 && error.code === "feature_off") ||
    (error.status === 404 && error.code === "route_not_found")
  );
}
