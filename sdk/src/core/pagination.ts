// Lists: one page as the API sends it, and the auto-paging iterator that follows after_id.

/** Paging metadata of a list response; `limit` is the effective (capped) page size. */
export interface PageMeta {
  /** Count of every matching record; absent when the request said `total: false` (list() asks on its first page only). */
  total?: number;
  limit: number;
  /** Offset paging: where this page starts. */
  offset?: number;
  /** After_id paging: the after_id this page was asked for. */
  after_id?: number;
  /** After_id paging, while more records follow: the after_id of the next page (absent on the last page). */
  next_after_id?: number;
}

/** One page of a list: `data` plus `meta`. */
export interface Page<T> {
  data: T[];
  meta: PageMeta;
}

/** Fetches the page of records after `afterId`, with meta.total when `withTotal`. */
export type PageFetcher<T> = (afterId: number, withTotal: boolean) => Promise<Page<T>>;

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
  readonly #startAfterId: number;
  readonly #total: boolean;

  /** Starts after the id `startAfterId` (0: from the first record); `total: false` never asks for meta.total. */
  constructor(fetchPage: PageFetcher<T>, startAfterId: number, total: boolean) {
    this.#fetchPage = fetchPage;
    this.#startAfterId = startAfterId;
    this.#total = total;
  }

  /**
   * Page by page on after_id: each page asks for the records after the last one it has seen, until
   * a page has no meta.next_after_id. A page costs the server the same however deep it is, and records
   * created or deleted meanwhile never make another record repeat or go missing. Only the first
   * page asks for meta.total (a count), and none does with `total: false`.
   */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let afterId: number | null = this.#startAfterId;
    let withTotal = this.#total;
    while (afterId !== null) {
      const page: Page<T> = await this.#fetchPage(afterId, withTotal);
      withTotal = false;
      yield page;
      const next = page.meta.next_after_id;
      // A cursor that does not move forward would repeat the page forever: the loop ends instead.
      afterId = typeof next === "number" && next > afterId ? next : null;
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
