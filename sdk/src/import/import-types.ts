// What import() takes and gives (docs/bulk-work.md): its options, the rows' results and the
// summary, how a reader turns its rows into items, and what the engine needs of a collection.
import type { ApiResult } from "../core/api-promise.ts";
import type { ErpError } from "../core/errors.ts";
import type { BatchResult } from "../core/results.ts";
import type { FieldError } from "../generated/types.ts";
import type { ImportMode } from "./item-keys.ts";
import type { ImportJournal } from "./journal.ts";
import type { ReadPage } from "./record-diff.ts";

type Json = Record<string, unknown>;

/** What became of a row. */
export type ImportStatus =
  | "created"
  | "updated"
  | "unchanged"
  | "replayed"
  | "rejected"
  | "not_imported";

/** Why a row was rejected (or, with `not_imported`, why it could not go in: a full quota). */
export interface ImportProblem {
  /** The item's HTTP status; null when the row never reached the API as a write. */
  status: number | null;
  code: string;
  detail: string;
  /** Every failing field at once. */
  errors: FieldError[];
  /** The batch's `X-Request-Id`, to quote in a support request. */
  request_id?: string;
}

/** One row's result. In a dry-run, `created` and `updated` say what the row would do. */
export interface ImportResult<R> {
  /** The row as it was given. */
  row: R;
  status: ImportStatus;
  /** The record's id (not for a create in a dry-run, nor for rows not written). */
  id?: number;
  error?: ImportProblem;
}

/** The counts of an import, by status, and why it ended early if it did (camelCase, as the SDK's own objects). */
export interface ImportSummary {
  mode: ImportMode;
  dryRun: boolean;
  /** Rows read: the sum of the counts below. */
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
  /** Rows an earlier run had written: known to the journal, or answered by the server from their key. */
  replayed: number;
  rejected: number;
  /** Rows read but not written because the import stopped (status `not_imported`); a re-run sends them. */
  notImported: number;
  /**
   * Why the import ended before the last row: `aborted` (the signal), `quota_exceeded`,
   * `api_error` (see `error`), or the reason given to `stop()`; null when it read every row.
   */
  stopped: string | null;
  /** The error that stopped the import (`api_error`): a refused token, an API that kept failing. */
  error?: ErpError;
  seconds: number;
}

/** A row as a batch item: the body to send, and what is wrong with it already (then it is not written). */
export type ImportItem =
  | {
      body: Json;
      /**
       * The reader's own objections (cells it cannot read): the row is refused, and the rest of
       * its body is checked by the API in a dry-run so its result lists every problem at once.
       */
      errors?: FieldError[];
    }
  | { refused: { code: string; detail: string } };

/** What a reader makes of a row: what its key is made of, and (only if the journal does not know it) its item. */
export type ImportRead =
  | { content: Json; item: () => ImportItem | Promise<ImportItem> }
  | { refused: { code: string; detail: string } };

/** How rows become batch items; the default takes each row object as the item (rowContent, rowBody). */
export type ImportReader<R> = (row: R) => ImportRead;

/** Options of import(). */
export interface ImportOptions<R = Json> {
  /** `create` (default), `upsert` (rows with a live record's `external_id` update it), `update` (by `id`). */
  mode?: ImportMode;
  /** Check every row in order, as the real run would (duplicates, the quota); nothing is written. */
  dryRun?: boolean;
  /** Each batch all or nothing: a batch with a refused row writes none (its other rows are `not_imported`). */
  atomic?: boolean;
  /** Rows per batch, at most 500 (the default). */
  batchSize?: number;
  /** Batches in flight at once, when they cannot meet (default 3). */
  concurrency?: number;
  /** Rows that went through, kept between runs (default: none). */
  journal?: ImportJournal;
  /** Stops the import: no batch is sent after it, and the ones in flight are abandoned (`not_imported`). */
  signal?: AbortSignal;
  /** Reads rows that are not the items themselves (a file's cells); the default sends each row object. */
  reader?: ImportReader<R>;
  /** Hears of each wait for the rate limit, in milliseconds. */
  onRateLimit?: (waitMs: number) => void;
}

/** The batch options the engine sends with. */
export interface ImportBatchOptions {
  dryRun: boolean;
  atomic: boolean;
  operation: "create" | "update";
  onConflict?: "error" | "update";
  itemKeys?: readonly string[];
  preceding?: { created: number; unique: Record<string, string[]> };
  signal?: AbortSignal | undefined;
}

/** What the engine needs of the collection it imports into. */
export interface ImportTarget {
  /** The collection's path segment (`workers`): part of every item key. */
  resource: string;
  /** The fields whose values are unique per company: batches sharing one go one after another. */
  unique: readonly string[];
  /** The update fields' hints (`amount, …`, `id`), for comparing a row with its record. */
  updateHints: Readonly<Record<string, string>>;
  send(items: readonly Json[], options: ImportBatchOptions): Promise<ApiResult<BatchResult>>;
  readPage: ReadPage;
  /** Whether the plan limits how many records of the collection the company may have. */
  quotaLimited(): Promise<boolean>;
}
