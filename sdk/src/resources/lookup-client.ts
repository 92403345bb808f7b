// Read-only lookup lists (trades, equipment categories): paging and sorting, no filters or fields.
import type { ApiPromise } from "../core/api-promise.ts";
import type { Page, PageIterator } from "../core/pagination.ts";
import type { RequestOptions } from "../core/request-options.ts";

/** Paging parameters of a lookup's list(). */
export interface LookupQuery {
  limit?: number;
  /** Only records whose id is greater than this; list() starts here. */
  after_id?: number;
  /** A sorted list's meta.next_cursor: the page after it (listPage()); list() follows them by itself. */
  after?: string;
  /** `false` leaves `meta.total` out; list() asks for it on its first page only. */
  total?: boolean;
}

/** Paging parameters of a lookup's listPage(): list()'s, or an `offset` instead of `after_id`. */
export interface LookupPageQuery extends LookupQuery {
  offset?: number;
}

/**
 * A read-only, seeded list of `{id, name}` records, sorted by `F`'s `sort` (`"name"`, `"-id"`, …);
 * the generic ResourceClient fulfils it.
 */
export interface LookupClient<R, F = Record<never, never>> {
  /** Every record, page after page as you iterate (a sorted list on its cursors). */
  list(query?: LookupQuery & F, options?: RequestOptions): PageIterator<R>;
  /** One page: `{ data, meta }`. */
  listPage(query?: LookupPageQuery & F, options?: RequestOptions): ApiPromise<Page<R>>;
}
