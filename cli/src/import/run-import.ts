// Sends the rows of an import source in batches (POST /v1/{resource}/batch), in file order, one
// batch at a time: the first of two rows with the same unique value always wins, and each batch
// sees the ones before it. Rows the journal knows are skipped; each batch carries an idempotency
// key made from its rows, so a batch whose answer was lost replays. The import paces itself by
// the RateLimit headers, waits out 429s, retries other transient failures for 60 s, and stops
// when the plan's quota is full (the rest could not go in).
import { createHash } from "node:crypto";
import { type BatchResult, ErpError } from "../../../sdk/mod.ts";
import type { AnyResourceClient } from "../resources.ts";
import type { Journal } from "./journal.ts";
import type { Progress } from "./progress.ts";
import type { ReferenceResolver } from "./references.ts";
import type { RejectsFile } from "./rejects.ts";
import type { Rejection, Report } from "./report.ts";
import { isTransient, withDeadline } from "./retry.ts";
import { rowIdempotencyKey } from "./row-key.ts";
import type { ImportSource, Row } from "./rows.ts";

/** Columns an export writes that no create accepts: dropped (with one warning) so exports re-import. */
const READ_ONLY_COLUMNS = ["id", "created_at", "updated_at", "deleted_at"];
/** The API takes up to 500 items a batch and 1 MiB a body; stay well inside both. */
const MAX_BATCH_ROWS = 500;
const MAX_BATCH_BYTES = 512 * 1024;

export interface ImportJob {
  resource: string;
  client: AnyResourceClient;
  source: ImportSource;
  dryRun: boolean;
  /** Update records by external_id instead of refusing them (on_conflict: update). */
  upsert: boolean;
  batchSize: number;
  journal: Journal;
  /** Resolves reference columns by name (trade, category, client, project). */
  references: ReferenceResolver;
  report: Report;
  rejects: RejectsFile;
  progress: Progress;
}

export interface ImportSummary {
  resource: string;
  format: string;
  dry_run: boolean;
  /** Rows read (and settled) before the import ended. */
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
  /** Rows an earlier run had already imported (from the journal, or a replayed batch). */
  already_imported: number;
  /** Dry run: rows that would be written. */
  valid: number;
  rejected: number;
  /** Batch requests sent (retries included). */
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

/** Rejections shown on stderr before the rest are left to --report / --rejects. */
const SHOWN_REJECTIONS = 10;

export class ImportRun {
  readonly #job: ImportJob;
  readonly #summary: ImportSummary;
  #consumed = 0;
  #warnedReadOnly = false;
  /** The error that stopped the import, when it was the API's (exit 1). */
  stopError: ErpError | undefined;
  /** True when the plan's quota stopped the import (exit 1, with its own message). */
  quotaFull = false;

  constructor(job: ImportJob) {
    this.#job = job;
    this.#summary = {
      resource: job.resource, format: job.source.format, dry_run: job.dryRun,
      rows: 0, created: 0, updated: 0, unchanged: 0, already_imported: 0, valid: 0, rejected: 0, requests: 0,
      stopped: null, seconds: 0, rows_per_second: 0,
    };
  }

  /** Stops before the next batch; the batch in flight finishes. */
  stop(reason: string): void {
    this.#summary.stopped ??= reason;
  }

  async run(): Promise<ImportSummary> {
    const started = Date.now();
    let pending: Pending[] = [];
    let bytes = 0;
    const limit = Math.min(MAX_BATCH_ROWS, this.#job.batchSize);
    for await (const row of this.#job.source.rows) {
      if (this.#summary.stopped !== null) break;
      this.#consumed += row.size;
      if (row.body === undefined) {
        this.#reject(row, undefined, { row: row.row, line: row.line, status: null, code: "invalid_row", detail: row.error ?? "unreadable row", errors: [] });
        continue;
      }
      const written = this.#writable(row.body);
      const key = rowIdempotencyKey(this.#job.resource, row.row, written, this.#job.dryRun);
      const { body, errors } = await this.#job.references.resolve(written);
      if (errors.length > 0) {
        this.#reject(row, written, { row: row.row, line: row.line, status: null, code: "validation_failed", detail: `${errors.length} reference${errors.length > 1 ? "s name" : " names"} nothing`, errors });
        continue;
      }
      if (!this.#job.dryRun && this.#job.journal.has(key)) {
        this.#summary.already_imported++;
        this.#progress();
        continue;
      }
      const size = JSON.stringify(body).length;
      if (pending.length > 0 && (pending.length >= limit || bytes + size > MAX_BATCH_BYTES)) {
        await this.#send(pending);
        pending = [];
        bytes = 0;
      }
      pending.push({ row, body, key });
      bytes += size;
    }
    if (pending.length > 0 && this.#summary.stopped === null) await this.#send(pending);
    this.#job.progress.finish(this.#counts());
    const seconds = (Date.now() - started) / 1000;
    this.#summary.seconds = Math.round(seconds * 10) / 10;
    const written = this.#summary.created + this.#summary.updated + this.#summary.unchanged + this.#summary.valid;
    this.#summary.rows_per_second = seconds > 0 ? Math.round(written / seconds) : written;
    return this.#summary;
  }

  #writable(body: Record<string, unknown>): Record<string, unknown> {
    const dropped = READ_ONLY_COLUMNS.filter((column) => column in body);
    if (dropped.length === 0) return body;
    if (!this.#warnedReadOnly) {
      this.#warnedReadOnly = true;
      this.#job.progress.log(`skipping read-only column${dropped.length > 1 ? "s" : ""} ${dropped.join(", ")} (the API sets them)`);
    }
    return Object.fromEntries(Object.entries(body).filter(([name]) => !READ_ONLY_COLUMNS.includes(name)));
  }

  async #send(batch: Pending[]): Promise<void> {
    const { client, dryRun, upsert } = this.#job;
    const idempotencyKey = `erp-import-${createHash("sha256").update(JSON.stringify([this.#job.resource, upsert, dryRun, batch.map((p) => p.key)])).digest("hex")}`;
    let result: BatchResult;
    let replayed = false;
    try {
      const answer = await withDeadline(() => {
        this.#summary.requests++;
        return client.batch(batch.map((p) => p.body), { dryRun, idempotencyKey, onConflict: upsert ? "update" : "error" }).withResponse();
      });
      result = answer.data;
      replayed = answer.response.replayed;
      await this.#pace(answer.response.headers);
    } catch (error) {
      if (!(error instanceof ErpError)) throw error;
      this.stopError ??= error;
      this.stop(stopsEverything(error)
        ? `the API refused the import (${error.status} ${error.code})`
        : isTransient(error)
        ? "the API kept failing for 60 s; re-run the same command to resume"
        : `the API refused a batch (${error.status} ${error.code})`);
      return;
    }
    const done: string[] = [];
    for (const item of result.results) {
      const pending = batch[item.index]!;
      if (item.error) {
        if (item.error.code === "quota_exceeded") this.quotaFull = true;
        this.#reject(pending.row, pending.body, {
          row: pending.row.row, line: pending.row.line, status: item.status, code: item.error.code, detail: item.error.detail,
          errors: item.error.errors ?? [], ...(replayed ? { replayed: true } : {}),
        });
        continue;
      }
      done.push(pending.key);
      if (dryRun) this.#summary.valid++;
      else if (replayed) this.#summary.already_imported++;
      else if (item.action === "created") this.#summary.created++;
      else if (item.action === "updated") this.#summary.updated++;
      else this.#summary.unchanged++;
    }
    if (!dryRun) this.#job.journal.add(done);
    this.#progress();
    if (this.quotaFull && !dryRun) {
      this.stop(`the ${this.#job.resource} quota of your plan is full: delete records or raise the quota, then re-run the same command to import the rest`);
    }
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

  #reject(row: Row, body: Record<string, unknown> | undefined, rejection: Rejection): void {
    this.#summary.rejected++;
    this.#job.report.add(rejection);
    const fields = rejection.errors.map((e) => `${e.field}: ${e.message}`).join("; ");
    this.#job.rejects.add(body ?? {}, `${rejection.code}: ${rejection.detail}${fields ? ` (${fields})` : ""}`);
    const { rejected } = this.#summary;
    if (rejected <= SHOWN_REJECTIONS) {
      const status = rejection.status === null ? "" : `${rejection.status} `;
      this.#job.progress.log(`row ${rejection.row} (line ${rejection.line}): ${status}${rejection.code}: ${rejection.detail}${fields ? ` (${fields})` : ""}`);
    } else if (rejected === SHOWN_REJECTIONS + 1) {
      this.#job.progress.log("more rows were rejected; --report and --rejects list every one");
    }
    this.#progress();
  }

  #progress(): void {
    this.#job.progress.update(this.#counts());
  }

  #counts() {
    const { created, updated, unchanged, already_imported, valid, rejected } = this.#summary;
    this.#summary.rows = created + updated + unchanged + already_imported + valid + rejected;
    return { done: this.#summary.rows, rejected, consumed: this.#consumed + this.#job.source.overhead() };
  }
}

/** Errors about the token, the plan or the URL rather than the rows. */
function stopsEverything(error: ErpError): boolean {
  return error.status === 401 || error.status === 405 ||
    (error.status === 402 && error.code === "feature_off") ||
    (error.status === 404 && error.code === "route_not_found");
}
