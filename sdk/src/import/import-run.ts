// The import engine (docs/bulk-work.md): rows in, one result per row out, in the rows' order (the
// rows a journal knows are answered at once). Rows go in batches (POST /v1/{resource}/batch) with
// one item key each (item-keys.ts), so nothing is written twice whatever happens between runs; a
// journal only spares re-sending what went through.
// A few batches are in flight at once when they cannot meet (no unique value in common, no quota
// to share, no dry-run to carry forward), and their answers are still taken in order. Retries are
// the client's (network errors, 5xx, 409 idempotency_in_progress); a 429 is waited out however
// long it says, and the import paces itself by the RateLimit headers. A full quota, an error the
// API keeps giving, `stop()` or the signal end it: the rows read and not sent are "not_imported".
import type { ApiResult } from "../core/api-promise.ts";
import { ErpError, RateLimitError } from "../core/errors.ts";
import type { BatchResult } from "../core/results.ts";
import { retryDelayMs, sleep } from "../core/retries.ts";
import type { FieldError } from "../generated/types.ts";
import type {
  ImportBatchOptions,
  ImportItem,
  ImportOptions,
  ImportProblem,
  ImportReader,
  ImportResult,
  ImportSummary,
  ImportTarget,
} from "./import-types.ts";
import { type ImportMode, ItemKeys, rowBody, rowContent } from "./item-keys.ts";
import type { ImportJournal } from "./journal.ts";
import { narrowUpdates } from "./record-diff.ts";
import { failedResults, refusal, withServerChecks } from "./row-problems.ts";

type Json = Record<string, unknown>;

/** The API takes up to 500 items a batch and 1 MiB a body; stay well inside both. */
const MAX_BATCH_ROWS = 500;
const MAX_BATCH_BYTES = 512 * 1024;
/** Rows a batch holds at most counting the ones refused before sending (they are not sent, only answered). */
const MAX_BATCH_ENTRIES = 4 * MAX_BATCH_ROWS;

/** A row read, and what is known of it so far. */
interface Entry<R> {
  row: R;
  key?: string;
  body?: Json;
  /** The reader's objections: the body goes to the dry-run check instead. */
  errors?: FieldError[];
  /** Settled before sending (the journal knows it, refused, unchanged). */
  result?: ImportResult<R>;
}

interface Batch<R> {
  entries: Entry<R>[];
  /** The entries to write, in order (narrowed to what differs, in an update). */
  items: Entry<R>[];
  bytes: number;
  /** The entries refused by the reader with a body, checked by a dry-run. */
  checks: Entry<R>[];
  checkBytes: number;
  /** Its unique values, once asked for. */
  unique?: Set<string>;
}

interface Flight<R> {
  batch: Batch<R>;
  answer: Promise<{ result?: ApiResult<BatchResult>; error?: unknown }>;
  check: Promise<BatchResult | undefined>;
}

const emptyBatch = <R>(): Batch<R> => ({
  entries: [],
  items: [],
  bytes: 0,
  checks: [],
  checkBytes: 0,
});

/** A unique value as the server compares it (trailing spaces do not count). */
function uniqueKeyOf(value: string): string {
  let end = value.length;
  while (end > 0 && value.charCodeAt(end - 1) === 0x20) end--;
  return value.slice(0, end);
}

/**
 * One import: iterate it for each row's result, in the rows' order (the rows the journal knows
 * come at once, ahead of rows in flight; nothing is sent before you iterate), or `await done()`
 * for the summary alone. `summary` tells the counts so far at any time.
 */
export class ImportRun<R> implements AsyncIterable<ImportResult<R>> {
  readonly #target: ImportTarget;
  readonly #rows: Iterable<R> | AsyncIterable<R>;
  readonly #mode: ImportMode;
  readonly #dryRun: boolean;
  readonly #atomic: boolean;
  readonly #limit: number;
  readonly #concurrency: number;
  readonly #journal: ImportJournal | undefined;
  readonly #signal: AbortSignal | undefined;
  readonly #reader: ImportReader<R>;
  readonly #onRateLimit: ((waitMs: number) => void) | undefined;
  readonly #keys: ItemKeys;
  /** Rows answered, by status (`not_imported` is a status's name; the summary says `notImported`). */
  readonly #counts = {
    created: 0,
    updated: 0,
    unchanged: 0,
    replayed: 0,
    rejected: 0,
    not_imported: 0,
  };
  #read = 0;
  #stopped: string | null = null;
  #error: ErpError | undefined;
  #started = 0;
  #ended = 0;
  #generator: AsyncGenerator<ImportResult<R>, ImportSummary> | undefined;
  /** Batches sent and not yet answered, oldest first. */
  readonly #flying: Flight<R>[] = [];
  #unlimited: Promise<boolean> | undefined;
  /** Dry-run: what the batches so far would write, told to the next one (the API's `preceding`). */
  readonly #preceding = { created: 0, unique: new Map<string, Set<string>>() };

  constructor(
    target: ImportTarget,
    rows: Iterable<R> | AsyncIterable<R>,
    options: ImportOptions<R> = {},
  ) {
    this.#target = target;
    this.#rows = rows;
    this.#mode = options.mode ?? "create";
    this.#dryRun = options.dryRun === true;
    this.#atomic = options.atomic === true;
    this.#limit = Math.max(1, Math.min(MAX_BATCH_ROWS, options.batchSize ?? MAX_BATCH_ROWS));
    this.#concurrency = Math.max(1, options.concurrency ?? 3);
    this.#journal = options.journal;
    this.#signal = options.signal;
    this.#reader = options.reader ?? objectReader(this.#mode);
    this.#onRateLimit = options.onRateLimit;
    this.#keys = new ItemKeys(target.resource, this.#mode);
  }

  /** Stops before the next batch; the batches in flight finish. */
  stop(reason = "stopped"): void {
    this.#stopped ??= reason;
  }

  /** The counts so far; rows read and not yet answered count as not imported. */
  get summary(): ImportSummary {
    const answered = Object.values(this.#counts).reduce((sum, count) => sum + count, 0);
    const end = this.#ended || Date.now();
    const { not_imported, ...counts } = this.#counts;
    return {
      mode: this.#mode,
      dryRun: this.#dryRun,
      rows: this.#read,
      ...counts,
      notImported: not_imported + this.#read - answered,
      stopped: this.#stopped,
      ...(this.#error ? { error: this.#error } : {}),
      seconds: this.#started ? Math.round((end - this.#started) / 100) / 10 : 0,
    };
  }

  [Symbol.asyncIterator](): AsyncGenerator<ImportResult<R>, ImportSummary> {
    if (this.#generator) throw new Error("an import runs once: start another with import()");
    this.#generator = this.#run();
    return this.#generator;
  }

  /** Runs the import to its end (the results are not kept) and gives the summary. */
  async done(): Promise<ImportSummary> {
    for await (const _ of this);
    return this.summary;
  }

  async *#run(): AsyncGenerator<ImportResult<R>, ImportSummary> {
    this.#started = Date.now();
    const onAbort = (): void => this.stop("aborted");
    if (this.#signal?.aborted) onAbort();
    this.#signal?.addEventListener("abort", onAbort, { once: true });
    const rows =
      Symbol.asyncIterator in this.#rows
        ? this.#rows[Symbol.asyncIterator]()
        : this.#rows[Symbol.iterator]();
    let finished = false;
    try {
      let batch = emptyBatch<R>();
      while (this.#stopped === null) {
        const next = await rows.next();
        if (next.done) {
          finished = true;
          break;
        }
        this.#read++;
        // Most rows need no wait (a journal in memory, an item at hand): no await, no turn of the loop.
        const prepared = this.#prepare(next.value);
        const entry = prepared instanceof Promise ? await prepared : prepared;
        // A row the journal knows needs no request: answered at once, ahead of rows still in flight.
        if (entry.result?.status === "replayed") {
          this.#counts.replayed++;
          yield entry.result;
          continue;
        }
        if (entry.body && !entry.errors) {
          const size = jsonSize(entry.body);
          if (batch.items.length > 0 && batch.bytes + size > MAX_BATCH_BYTES) {
            yield* this.#dispatch(batch);
            batch = emptyBatch();
          }
          batch.items.push(entry);
          batch.bytes += size;
        } else if (entry.body) {
          batch.checks.push(entry);
          batch.checkBytes += jsonSize(entry.body);
        }
        batch.entries.push(entry);
        // Refused rows count too: their dry-run is a batch of its own, under the same limits.
        if (
          batch.items.length + batch.checks.length >= this.#limit ||
          batch.checkBytes > MAX_BATCH_BYTES ||
          batch.entries.length >= MAX_BATCH_ENTRIES
        ) {
          yield* this.#dispatch(batch);
          batch = emptyBatch();
        }
      }
      yield* this.#dispatch(batch);
      yield* this.#land(0);
    } finally {
      this.#signal?.removeEventListener("abort", onAbort);
      // Ended early (stopped, or the caller left the loop): the rows' source is closed, as for-of would.
      if (!finished) {
        this.stop();
        await rows.return?.();
      }
      this.#ended = Date.now();
    }
    return this.summary;
  }

  /** The row's key and item, or its result when it is settled here (known to the journal, refused). */
  #prepare(row: R): Entry<R> | Promise<Entry<R>> {
    const read = this.#reader(row);
    if ("refused" in read)
      return { row, result: { row, status: "rejected", error: refusal(read.refused) } };
    const key = this.#keys.next(read.content);
    const known = !this.#dryRun && this.#journal ? this.#journal.has(key) : false;
    const settle = (known: boolean): Entry<R> | Promise<Entry<R>> => {
      if (known) return { row, key, result: { row, status: "replayed" } };
      const item = read.item();
      return item instanceof Promise
        ? item.then((item) => entryOf(row, key, item))
        : entryOf(row, key, item);
    };
    return typeof known === "boolean" ? settle(known) : known.then(settle);
  }

  /**
   * Sends a batch while the next is read. It goes once the ones before it have answered, unless it
   * cannot meet them; then up to `concurrency` are in flight at once (the database writes one while
   * the server decides another). The rows the reader refused go to a dry-run of their own alongside.
   */
  async *#dispatch(batch: Batch<R>): AsyncGenerator<ImportResult<R>> {
    if (batch.entries.length === 0) return;
    if (this.#flying.length > 0 && !(await this.#independent(batch))) yield* this.#land(0);
    yield* this.#land(this.#concurrency - 1);
    const going = this.#stopped === null;
    const answer =
      batch.items.length > 0 && going
        ? this.#narrowed(batch).then(
            (result) => (result ? { result } : {}),
            (error: unknown) => ({ error }),
          )
        : Promise.resolve({});
    const check =
      batch.checks.length > 0 && going
        ? this.#send(
            batch.checks.map((entry) => entry.body!),
            { ...this.#operation(), dryRun: true, atomic: false, signal: this.#signal },
          ).then(
            (answered) => answered.data,
            () => undefined,
          )
        : Promise.resolve(undefined);
    this.#flying.push({ batch, answer, check });
  }

  /** Takes the answers of the batches in flight, in order, until `keep` are left. */
  async *#land(keep: number): AsyncGenerator<ImportResult<R>> {
    while (this.#flying.length > keep) {
      const { batch, answer, check } = this.#flying[0]!;
      const results = this.#settle(batch, await answer, await check);
      const done = results.flatMap((result, index) =>
        !this.#dryRun &&
        batch.entries[index]!.key !== undefined &&
        ["created", "updated", "unchanged", "replayed"].includes(result.status)
          ? [batch.entries[index]!.key!]
          : [],
      );
      if (this.#journal && done.length > 0) await this.#journal.add(done);
      this.#flying.shift();
      for (const result of results) {
        this.#counts[result.status]++;
        yield result;
      }
    }
  }

  async #independent(batch: Batch<R>): Promise<boolean> {
    if (this.#dryRun || !(await this.#quotaFree())) return false;
    const taken = this.#flying.map((flight) => this.#uniqueValues(flight.batch));
    for (const value of this.#uniqueValues(batch))
      if (taken.some((values) => values.has(value))) return false;
    return true;
  }

  /** The values a batch's rows give the unique fields (`field\0value`), as the server compares them. */
  #uniqueValues(batch: Batch<R>): Set<string> {
    if (!batch.unique) {
      batch.unique = new Set();
      for (const field of this.#target.unique) {
        for (const { body } of batch.items) {
          const value = body![field];
          if (typeof value === "string") batch.unique.add(`${field}\u0000${uniqueKeyOf(value)}`);
        }
      }
      // Two batches that update one record are diffed and written one after the other.
      if (this.#mode === "update")
        for (const { body } of batch.items) batch.unique.add(`id\u0000${String(body!.id)}`);
    }
    return batch.unique;
  }

  /** Whether no plan quota limits the collection (asked once). */
  #quotaFree(): Promise<boolean> {
    this.#unlimited ??= this.#target.quotaLimited().then(
      (limited) => !limited,
      () => false,
    );
    return this.#unlimited;
  }

  /** An update's batch goes with only the fields that differ; a row that differs in nothing is unchanged. */
  async #narrowed(batch: Batch<R>): Promise<ApiResult<BatchResult> | undefined> {
    if (this.#mode === "update") {
      const bodies = batch.items.map((entry) => entry.body!);
      const unchanged = await narrowUpdates(bodies, this.#target.updateHints, (afterId, limit) =>
        this.#target.readPage(afterId, limit),
      );
      batch.items.forEach((entry, index) => {
        entry.body = bodies[index]!;
        if (unchanged.has(index)) {
          const id = entry.body.id;
          entry.result = {
            row: entry.row,
            status: "unchanged",
            ...(typeof id === "number" ? { id } : {}),
          };
        }
      });
      batch.items = batch.items.filter((_, index) => !unchanged.has(index));
      if (batch.items.length === 0) return undefined;
    }
    const items = batch.items;
    return this.#send(
      items.map((entry) => entry.body!),
      {
        ...this.#operation(),
        dryRun: this.#dryRun,
        atomic: this.#atomic,
        itemKeys: items.map((entry) => entry.key!),
        ...(this.#dryRun ? { preceding: this.#precedingFor(items) } : {}),
        signal: this.#signal,
      },
    );
  }

  #operation(): Pick<ImportBatchOptions, "operation" | "onConflict"> {
    if (this.#mode === "update") return { operation: "update" };
    return { operation: "create", onConflict: this.#mode === "upsert" ? "update" : "error" };
  }

  /** The batch's answer: the client retries what may not have run; a 429 is waited out however long it says. */
  async #send(
    bodies: readonly Json[],
    options: ImportBatchOptions,
  ): Promise<ApiResult<BatchResult>> {
    for (;;) {
      try {
        const answer = await this.#target.send(bodies, options);
        await this.#pace(answer.response.headers);
        return answer;
      } catch (error) {
        if (!(error instanceof RateLimitError)) throw error;
        const wait = retryDelayMs(0, error.headers) ?? 60_000;
        this.#onRateLimit?.(wait);
        await sleep(wait, this.#signal);
      }
    }
  }

  /** Waits for the next rate window when the last answer said none is left. */
  async #pace(headers: Headers): Promise<void> {
    const remaining = Number(headers.get("ratelimit-remaining"));
    const reset = Number(headers.get("ratelimit-reset"));
    if (headers.has("ratelimit-remaining") && remaining <= 0 && reset > 0) {
      this.#onRateLimit?.(reset * 1000);
      await sleep(reset * 1000, this.#signal);
    }
  }

  /** Dry-run: what the earlier batches would have written that this one's items use. */
  #precedingFor(items: readonly Entry<R>[]): { created: number; unique: Record<string, string[]> } {
    const unique: Record<string, string[]> = {};
    for (const [field, taken] of this.#preceding.unique) {
      const keys = new Set(
        items.flatMap(({ body }) => {
          const value = body![field];
          return typeof value === "string" ? [uniqueKeyOf(value)] : [];
        }),
      );
      // A value the same but for trailing spaces is the same value to the server: tell it that one too.
      const used = [...taken].filter((value) => keys.has(uniqueKeyOf(value)));
      if (used.length > 0) unique[field] = used;
    }
    return { created: this.#preceding.created, unique };
  }

  /** Each row's result, in the batch's order, from the answer to its items and the check of its refused rows. */
  #settle(
    batch: Batch<R>,
    answer: { result?: ApiResult<BatchResult>; error?: unknown },
    check: BatchResult | undefined,
  ): ImportResult<R>[] {
    const answered = new Map<Entry<R>, ImportResult<R>>();
    let results = answer.result?.data.results;
    const requestId = answer.result?.response.requestId;
    const error = answer.error;
    // Abandoned by the signal (the request, or a wait for the rate limit): its rows are not imported.
    if (error !== undefined && !this.#signal?.aborted) {
      if (!(error instanceof ErpError)) throw error;
      if (error.code === "batch_failed") results = failedResults(error);
      else {
        this.#error ??= error;
        this.stop("api_error");
      }
    }
    for (const item of results ?? []) {
      const entry = batch.items[item.index];
      if (!entry) continue;
      answered.set(entry, this.#itemResult(entry, item, error ? undefined : requestId));
    }
    let checked = 0;
    return batch.entries.map((entry) => {
      if (entry.result) return entry.result;
      if (entry.errors)
        return {
          row: entry.row,
          status: "rejected",
          error: withServerChecks(entry.errors, check?.results, checked++),
        };
      return answered.get(entry) ?? { row: entry.row, status: "not_imported" };
    });
  }

  #itemResult(
    entry: Entry<R>,
    item: BatchResult["results"][number],
    requestId: string | undefined,
  ): ImportResult<R> {
    const { row } = entry;
    const id = typeof item.id === "number" ? { id: item.id } : {};
    if (item.error) {
      const error: ImportProblem = {
        status: item.status,
        code: item.error.code,
        detail: item.error.detail,
        errors: item.error.errors ?? [],
        ...(requestId ? { request_id: requestId } : {}),
      };
      if (item.error.code === "quota_exceeded") {
        if (!this.#dryRun) this.stop("quota_exceeded");
        return { row, status: "not_imported", error };
      }
      // An atomic batch refused for another item's fault: this row is fine, and a re-run sends it.
      if (item.error.code === "batch_failed") return { row, status: "not_imported", error };
      return { row, status: "rejected", error };
    }
    if (this.#dryRun) this.#carryForward(item, entry.body!);
    if (item.replayed) return { row, status: "replayed", ...id };
    if (item.action === "created") return { row, status: "created", ...id };
    if (item.action === "updated") return { row, status: "updated", ...id };
    return { row, status: "unchanged", ...id };
  }

  /** Dry-run: what this item would write, for the next batches' `preceding`. */
  #carryForward(item: BatchResult["results"][number], body: Json): void {
    if (item.action === "created") this.#preceding.created++;
    for (const field of this.#target.unique) {
      const value = body[field];
      if (typeof value !== "string") continue;
      const taken = this.#preceding.unique.get(field) ?? new Set<string>();
      this.#preceding.unique.set(field, taken.add(value));
    }
  }
}

function entryOf<R>(row: R, key: string, item: ImportItem): Entry<R> {
  if ("refused" in item)
    return { row, key, result: { row, status: "rejected", error: refusal(item.refused) } };
  return item.errors && item.errors.length > 0
    ? { row, key, body: item.body, errors: item.errors }
    : { row, key, body: item.body };
}

/** Rows given as objects: each is its own item (see rowContent and rowBody). */
function objectReader<R>(mode: ImportMode): ImportReader<R> {
  return (row) => {
    if (row === null || typeof row !== "object" || Array.isArray(row))
      return { refused: { code: "invalid_row", detail: "not an object" } };
    return {
      content: rowContent(row as Json, mode),
      item: () => ({ body: rowBody(row as Json, mode) }),
    };
  };
}

const encoder = new TextEncoder();

/** Bytes a body takes as JSON, without writing it: plain text counts its length, anything else is measured. */
function jsonSize(body: Readonly<Json>): number {
  let size = 2;
  for (const field in body) {
    const value = body[field];
    const plain = typeof value === "string" && !/[^\x20-\x7e]|["\\]/.test(value);
    size +=
      field.length +
      4 +
      (plain ? (value as string).length + 2 : encoder.encode(JSON.stringify(value)).length);
  }
  return size;
}
