// Public paging types: one page, and the iterator list() returns.
export { type Page, PageIterator, type PageMeta, type ToArrayOptions } from "./core/pagination.ts";
