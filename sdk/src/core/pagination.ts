// Lists: one page as the API sends it, and the auto-paging iterator that follows SPEC.md 4.2.

/** Paging metadata of a list response; `limit` is the effective (capped) page size. */
export interface PageMeta {
  total: number;
  limit: number;
  offset: number;
}

/** One page of a list: `data` plus `meta`. */
export interface Page<T> {
  data: T[];
  meta: PageMeta;
}

/** Fetches the page starting at `offset`. */
export type PageFetcher<T> = (offset: number) => Promise<Page<T>>;

/**
 * Every record of a list, fetched page by page as you iterate: `for await (const p of erp.projects.list())`.
 * Nothing is requested until iteration starts.
 */
export class PageIterator<T> implements AsyncIterable<T> {
  readonly #fetchPage: PageFetcher<T>;
  readonly #startOffset: number;

  constructor(fetchPage: PageFetcher<T>, startOffset: number) {
    this.#fetchPage = fetchPage;
    this.#startOffset = startOffset;
  }

  /**
   * Page by page, by the SPEC.md 4.2 rule: read `meta.total` from the first response, then raise
   * `offset` by the effective `limit` until it reaches that total.
   */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let offset = this.#startOffset;
    let total: number | undefined;
    do {
      const page = await this.#fetchPage(offset);
      total ??= page.meta.total;
      yield page;
      // A zero limit would never reach the total; the API never sends one, but a loop must end.
      offset += Math.max(1, page.meta.limit);
    } while (offset < total);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Every record in one array; mind the memory on large collections. */
  async toArray(): Promise<T[]> {
    const records: T[] = [];
    for await (const record of this) records.push(record);
    return records;
  }
}
