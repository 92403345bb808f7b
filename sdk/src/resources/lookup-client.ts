// Read-only lookup lists (trades, equipment categories): paging only, no filters or fields.
import type { ApiPromise } from "../core/api-promise.ts";
import type { Page, PageIterator } from "../core/pagination.ts";
import type { RequestOptions } from "../core/request-options.ts";

/** Paging parameters of a lookup list. */
export interface LookupQuery {
  limit?: number;
  offset?: number;
}

/** A read-only, seeded list of `{id, name}` records; the generic ResourceClient fulfils it. */
export interface LookupClient<R> {
  /** Every record, page after page as you iterate. */
  list(query?: LookupQuery, options?: RequestOptions): PageIterator<R>;
  /** One page: `{ data, meta: { total, limit, offset } }`. */
  listPage(query?: LookupQuery, options?: RequestOptions): ApiPromise<Page<R>>;
}
