// Lists: one page as the API sends it, and the auto-paging iterator that follows after_id (or,
// for a sorted list, the cursor each page hands to the next).

/** Paging metadata of a list response; `limit` is the effective (capped) page size. */
export interface PageMeta {
  /**
   * Count of every matching record; absent when the request said `total: false` (list() asks on
   * its first page only).
   */
  total?: number;
  limit: number;
  /** Offset paging: where this page starts. */
  offset?: number;
  /** After_id paging: the after_id this page was asked for. */
  after_id?: number;
  /** After_id paging, while more records follow: the after_id of the next page (absent on the last page). */
  next_after_id?: number;
  /** A sorted page, while more records follow: the `after` of the next page (absent on the last page). */
  next_cursor?: string;
}

/** One page of a list: `data` plus `meta`. */
export interface Page<T> {
  data: T[];
  meta: PageMeta;
}

/** Where a page starts: after an id (a list in id order), or after a cursor (a sorted list; none: its first page). */
export type PageStart = { after_id: number } | { after?: string };

/** Fetches the page of records at `start`, with meta.total when `withTotal`. */
export type PageFetcher<T> = (start: PageStart, withTotal: boolean) => Promise<Page<T>>;

/** What toArray() collects. */
export interface ToArrayOptions {
  /** At most this many records: no page after the one that reaches it is fetched. */
  limit?: number;
}

/**
 * Every record of a list, fetched page by page as you iterate: `for await (const p of erp.projects.list())`.
 * Nothing is requested until iteration starts.
 */
export class PageIterator<T> implements AsyncIterable<T> {
  readonly #fetchPage: PageFetcher<T>;
  readonly #start: PageStart;
  readonly #total: boolean;

  /**
   * Starts at `start`: after an id (`{after_id: 0}`: from the first record) or, for a sorted list,
   * after a cursor (`{}`: from the first record); `total: false` never asks for meta.total.
   */
  constructor(fetchPage: PageFetcher<T>, start: PageStart, total: boolean) {
    this.#fetchPage = fetchPage;
    this.#start = start;
    this.#total = total;
  }

  /**
   * Page by page on after_id (or a sorted list's cursors): each page asks for the records after the
   * last one it has seen, until a page has no meta.next_after_id (next_cursor). A page costs the
   * server the same however deep it is, and records created or deleted meanwhile never make another
   * record repeat or go missing. Only the first page asks for meta.total (a count), and none does
   * with `total: false`.
   */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let start: PageStart | null = this.#start;
    let withTotal = this.#total;
    while (start !== null) {
      const page: Page<T> = await this.#fetchPage(start, withTotal);
      withTotal = false;
      yield page;
      start = nextStart(start, page.meta);
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Every record in one array, or the first `limit`; mind the memory on large collections. */
  async toArray(options: ToArrayOptions = {}): Promise<T[]> {
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    if (limit !== Number.POSITIVE_INFINITY && (!Number.isInteger(limit) || limit < 0))
      throw new RangeError(`toArray's limit must be a whole number of at least 0, not ${limit}`);
    const records: T[] = [];
    if (limit === 0) return records;
    for await (const record of this) {
      records.push(record);
      if (records.length >= limit) break;
    }
    return records;
  }
}

/** Where the page after one that started at `start` starts; null after the last page. */
function nextStart(start: PageStart, meta: PageMeta): PageStart | null {
  if ("after_id" in start) {
    const next = meta.next_after_id;
    // A cursor that does not move forward would repeat the page forever: the loop ends instead.
    return typeof next === "number" && next > start.after_id ? { after_id: next } : null;
  }
  const next = meta.next_cursor;
  return typeof next === "string" && next !== start.after ? { after: next } : null;
}
