// Sends every row of an import source as a create, N at a time, and counts what happened to each.
import { ErpError } from "../../../sdk/mod.ts";
import type { AnyResourceClient } from "../resources.ts";
import type { Progress } from "./progress.ts";
import type { Rejection, Report } from "./report.ts";
import { isTransient, withDeadline } from "./retry.ts";
import { rowIdempotencyKey } from "./row-key.ts";
import type { ImportSource, Row } from "./rows.ts";

export interface ImportJob {
  resource: string;
  client: AnyResourceClient;
  source: ImportSource;
  dryRun: boolean;
  concurrency: number;
  report: Report;
  progress: Progress;
}

export interface ImportSummary {
  resource: string;
  format: string;
  dry_run: boolean;
  /** Rows read (and settled) before the import ended. */
  rows: number;
  created: number;
  /** Rows an earlier run of the same file had already created: the server replayed that result. */
  replayed: number;
  /** Dry run: rows that would be created. */
  valid: number;
  rejected: number;
  /** Why the import ended before the last row, if it did. */
  stopped: string | null;
  seconds: number;
}

/** Rejections shown on stderr before the rest are left to --report. */
const SHOWN_REJECTIONS = 10;

export class ImportRun {
  readonly #job: ImportJob;
  readonly #summary: ImportSummary;
  #consumed = 0;
  /** Rows in a row that ran out of retries: after as many as run at once (at least 2), the API is down, not one row bad. */
  #transientStreak = 0;
  /** The error that stopped the import, when it was the API's (exit 1). */
  stopError: ErpError | undefined;

  constructor(job: ImportJob) {
    this.#job = job;
    this.#summary = {
      resource: job.resource, format: job.source.format, dry_run: job.dryRun,
      rows: 0, created: 0, replayed: 0, valid: 0, rejected: 0, stopped: null, seconds: 0,
    };
  }

  /** Stops taking new rows; rows already sent finish. */
  stop(reason: string): void {
    this.#summary.stopped ??= reason;
  }

  async run(): Promise<ImportSummary> {
    const started = Date.now();
    const rows = this.#job.source.rows[Symbol.asyncIterator]();
    const worker = async (): Promise<void> => {
      while (this.#summary.stopped === null) {
        const next = await rows.next();
        if (next.done) return;
        await this.#settle(next.value);
      }
    };
    const workers = await Promise.allSettled(Array.from({ length: this.#job.concurrency }, worker));
    this.#job.progress.finish(this.#counts());
    const failed = workers.find((outcome) => outcome.status === "rejected");
    if (failed) throw failed.reason;
    this.#summary.seconds = Math.round((Date.now() - started) / 100) / 10;
    return this.#summary;
  }

  async #settle(row: Row): Promise<void> {
    if (row.body === undefined) {
      this.#reject({ row: row.row, line: row.line, status: null, code: "invalid_row", detail: row.error ?? "unreadable row", errors: [] });
    } else {
      await this.#send(row, row.body);
    }
    this.#consumed += row.size;
    this.#job.progress.update(this.#counts());
  }

  async #send(row: Row, body: Record<string, unknown>): Promise<void> {
    const { client, resource, dryRun } = this.#job;
    const idempotencyKey = rowIdempotencyKey(resource, row.row, body, dryRun);
    try {
      const { response } = await withDeadline(() => client.create(body, { dryRun, idempotencyKey }).withResponse());
      this.#transientStreak = 0;
      if (dryRun) this.#summary.valid++;
      else if (response.replayed) this.#summary.replayed++;
      else this.#summary.created++;
    } catch (error) {
      if (!(error instanceof ErpError)) throw error;
      if (stopsEverything(error)) {
        // Every other row would fail the same way: stop, and leave this row for the next run.
        this.stopError ??= error;
        this.stop(`the API refused the import (${error.status} ${error.code})`);
        return;
      }
      this.#reject(rejection(row, error));
      if (!isTransient(error)) {
        this.#transientStreak = 0;
      } else if (++this.#transientStreak >= Math.max(2, this.#job.concurrency)) {
        this.stopError ??= error;
        this.stop("the API kept failing for 60 s; re-run the same command to resume");
      }
    }
  }

  #reject(rejection: Rejection): void {
    this.#summary.rejected++;
    this.#job.report.add(rejection);
    const { rejected } = this.#summary;
    if (rejected <= SHOWN_REJECTIONS) {
      const fields = rejection.errors.map((e) => `${e.field}: ${e.message}`).join("; ");
      const status = rejection.status === null ? "" : `${rejection.status} `;
      this.#job.progress.log(`row ${rejection.row} (line ${rejection.line}): ${status}${rejection.code}: ${rejection.detail}${fields ? ` (${fields})` : ""}`);
    } else if (rejected === SHOWN_REJECTIONS + 1) {
      this.#job.progress.log("more rows were rejected; the --report file lists every one");
    }
  }

  #counts() {
    const { created, replayed, valid, rejected } = this.#summary;
    this.#summary.rows = created + replayed + valid + rejected;
    return { done: this.#summary.rows, rejected, consumed: this.#consumed + this.#job.source.overhead() };
  }
}

/** Errors about the token, the plan or the URL rather than the row. */
function stopsEverything(error: ErpError): boolean {
  return error.status === 401 || error.status === 405 ||
    (error.status === 402 && error.code === "feature_off") ||
    (error.status === 404 && error.code === "route_not_found");
}

function rejection(row: Row, error: ErpError): Rejection {
  const body = error.body as { detail?: unknown } | undefined;
  return {
    row: row.row,
    line: row.line,
    status: error.status ?? null,
    code: error.code,
    detail: typeof body?.detail === "string" ? body.detail : error.message,
    errors: error.errors,
    ...(error.headers.get("idempotent-replayed") === "true" ? { replayed: true } : {}),
    ...(error.requestId ? { request_id: error.requestId } : {}),
  };
}
