// Sends the rows of an import source in batches (POST /v1/{resource}/batch), in file order, one
// batch at a time (the first of two rows with the same unique value always wins), reading and
// preparing the next batch while one is in flight. Every row carries its item key (row-key.ts), so
// nothing is written twice whatever happens between runs; the journal only spares re-sending what
// went through. Retries are the SDK's (network errors, 5xx, 409 idempotency_in_progress); a 429 is
// waited out however long it says, and the import paces itself by the RateLimit headers. A full
// quota, a refused token or Ctrl-C stop it: the rows not sent are "not imported", not rejects.
import {
  type BatchResult,
  type CollectionSpec,
  ErpError,
  RateLimitError,
  retryDelayMs,
} from "@erp/sdk";
import { coerce } from "../body.ts";
import type { AnyResourceClient } from "../resources.ts";
import type { Column } from "./columns.ts";
import type { Journal } from "./journal.ts";
import type { Progress } from "./progress.ts";
import type { FieldError, ReferenceResolver } from "./references.ts";
import type { RejectsFile } from "./rejects.ts";
import type { Rejection, Report } from "./report.ts";
import { RowKeys } from "./row-key.ts";
import type { ImportSource, Row } from "./rows.ts";

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
  /** What each CSV column is (from columns.ts); undefined for NDJSON. */
  columns: Column[] | undefined;
  dryRun: boolean;
  /** Update records by external_id instead of refusing them (on_conflict: update). */
  upsert: boolean;
  batchSize: number;
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
  /** Rows read before the import ended (blank rows not counted). */
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
  /** Rows whose cells were all empty, skipped. */
  blank: number;
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

/** Rows read into one batch, and the rows refused before sending it (reported with its results, in row order). */
interface Batch {
  items: Pending[];
  bytes: number;
  refused: { row: Row; rejection: Rejection }[];
  /** Its unique values, once asked for. */
  unique?: Set<string>;
}

/** Batches in flight at once at most (only batches that cannot meet each other go together). */
const MAX_IN_FLIGHT = 3;

/** Rejections shown on stderr before the rest are left to --report / --rejects. */
const SHOWN_REJECTIONS = 10;

const emptyBatch = (): Batch => ({ items: [], bytes: 0, refused: [] });

export class ImportRun {
  readonly #job: ImportJob;
  readonly #summary: ImportSummary;
  readonly #keys: RowKeys;
  #consumed = 0;
  /** Batches sent and not yet answered, oldest first. */
  #flying: { batch: Batch; answer: Promise<{ result?: BatchResult; error?: unknown }> }[] = [];
  #unlimited: Promise<boolean> | undefined;
  /** Dry-run: what the batches so far would write, told to the next one (the API's `preceding`). */
  readonly #preceding = { created: 0, unique: new Map<string, Set<string>>() };
  /** The error that stopped the import, when it was the API's (exit 1). */
  stopError: ErpError | undefined;
  /** True when the plan's quota stopped the import (exit 1, with its own message). */
  quotaFull = false;

  constructor(job: ImportJob) {
    this.#job = job;
    this.#keys = new RowKeys(job.resource, job.upsert);
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

  async run(): Promise<ImportSummary> {
    const started = Date.now();
    const limit = Math.min(MAX_BATCH_ROWS, this.#job.batchSize);
    let batch = emptyBatch();
    for await (const row of this.#job.source.rows) {
      if (this.#summary.stopped !== null) {
        this.#notImported(1);
        break;
      }
      this.#consumed += row.size;
      const pending = await this.#prepare(row, batch);
      if (!pending) continue;
      const size = jsonSize(pending.body);
      if (
        batch.items.length > 0 &&
        (batch.items.length >= limit || batch.bytes + size > MAX_BATCH_BYTES)
      ) {
        await this.#dispatch(batch);
        batch = emptyBatch();
      }
      batch.items.push(pending);
      batch.bytes += size;
    }
    await this.#dispatch(batch);
    await this.#land();
    this.#job.progress.finish(this.#counts());
    const seconds = (Date.now() - started) / 1000;
    this.#summary.seconds = Math.round(seconds * 10) / 10;
    const written =
      this.#summary.created + this.#summary.updated + this.#summary.unchanged + this.#summary.valid;
    this.#summary.rows_per_second = seconds > 0 ? Math.round(written / seconds) : written;
    this.#summary.requests = this.#job.requests();
    return this.#summary;
  }

  /** The row as a batch item (key, body), or nothing: blank, already imported, or refused here. */
  async #prepare(row: Row, batch: Batch): Promise<Pending | undefined> {
    const refuse = (code: string, detail: string, errors: FieldError[] = []): undefined => {
      batch.refused.push({
        row,
        rejection: { row: row.row, line: row.line, status: null, code, detail, errors },
      });
      return undefined;
    };
    if (row.error !== undefined) return refuse("invalid_row", row.error);
    const content = this.#content(row);
    if (!content) {
      this.#summary.blank++;
      return undefined;
    }
    const key = this.#keys.next(content);
    if (!this.#job.dryRun && this.#job.journal.has(key)) {
      this.#summary.already_imported++;
      this.#progress();
      return undefined;
    }
    const body: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(content.values))
      body[field] = typeof value === "string" && row.cells ? coerce(field, value) : value;
    if (Object.keys(content.names).length === 0) return { row, key, body };
    const { ids, errors } = await this.#job.references.resolve(content.names);
    if (errors.length > 0)
      return refuse(
        "validation_failed",
        `${errors.length} reference${errors.length > 1 ? "s name" : " names"} nothing`,
        errors,
      );
    return { row, key, body: { ...body, ...ids } };
  }

  /** The row's values by field as the file gives them, and the references it names; undefined for a blank row. */
  #content(
    row: Row,
  ): { values: Record<string, unknown>; names: Record<string, string> } | undefined {
    const values: Record<string, unknown> = {};
    const names: Record<string, string> = {};
    if (row.object) {
      for (const [member, value] of Object.entries(row.object))
        if (!READ_ONLY.includes(member)) values[member] = value;
      return Object.keys(values).length > 0 ? { values, names } : undefined;
    }
    const cells = row.cells ?? [];
    if (cells.every((cell) => cell.trim() === "")) return undefined;
    this.#job.columns!.forEach((column, index) => {
      const cell = cells[index] ?? "";
      // An empty cell means "not given": the API applies its default, or leaves the field null.
      if (cell === "" || column.kind === "skipped") return;
      if (column.kind === "reference") names[column.field] = cell;
      else values[column.field] = cell;
    });
    return { values, names };
  }

  /**
   * Sends a batch while the next is read. A batch goes once the ones before it have answered,
   * unless it cannot meet them: no unique value in common (so no order between their rows decides
   * anything), no quota to share out, no dry-run to carry forward. Then up to three are in flight at once
   * (the database writes one while the server decides another: measured, three import a tenth
   * faster than two on 2 cores, four no faster), and their answers are still taken in file order.
   */
  async #dispatch(batch: Batch): Promise<void> {
    if (this.#flying.length > 0 && !(await this.#independent(batch))) await this.#land();
    while (this.#flying.length >= MAX_IN_FLIGHT) await this.#land();
    const answer =
      batch.items.length > 0 && this.#summary.stopped === null
        ? this.#post(batch.items).then(
            (result) => ({ result }),
            (error: unknown) => ({ error }),
          )
        : Promise.resolve({});
    this.#flying.push({ batch, answer });
  }

  /** Takes the answers of every batch in flight, in file order. */
  async #land(): Promise<void> {
    while (this.#flying.length > 0) {
      const { batch, answer } = this.#flying.shift()!;
      await this.#settle(batch, await answer);
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

  async #settle(batch: Batch, answer: { result?: BatchResult; error?: unknown }): Promise<void> {
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
    const rejections: { row: Row; rejection: Rejection }[] = [...batch.refused];
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
        `the ${this.#job.resource} quota of your plan is full: delete records or raise the quota, then re-run the same command to import the rest`,
      );
    }
  }

  /** The batch's answer: the SDK retries what may not have run; a 429 is waited out however long it says. */
  async #post(items: readonly Pending[]): Promise<BatchResult> {
    const { client, dryRun, upsert } = this.#job;
    const options = {
      dryRun,
      onConflict: upsert ? ("update" as const) : ("error" as const),
      itemKeys: items.map((pending) => pending.key),
      ...(dryRun ? { preceding: this.#precedingFor(items) } : {}),
    };
    for (;;) {
      try {
        const answer = await client
          .batch(
            items.map((pending) => pending.body),
            options,
          )
          .withResponse();
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
    const { created, updated, unchanged, already_imported, valid, rejected, not_imported } =
      this.#summary;
    this.#summary.rows =
      created + updated + unchanged + already_imported + valid + rejected + not_imported;
    return {
      done: this.#summary.rows,
      rejected,
      consumed: this.#consumed + this.#job.source.overhead,
    };
  }
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
