// One typed client for any collection: every method is a single call into the shared transport.
import { ApiPromise } from "../core/api-promise.ts";
import { type Page, PageIterator } from "../core/pagination.ts";
import type { ConditionalWriteOptions, RequestOptions, WriteOptions } from "../core/request-options.ts";
import type { BatchResult, Created, CreateResult, DeleteResult, DryRunCreated, Picked, UpdateResult } from "../core/results.ts";
import type { ApiRequest, QueryValues, Transport } from "../core/transport.ts";

/** Paging and sparse-fieldset parameters every list takes. */
export interface ListParams<K> {
  /** Page size; the API caps it at 100 (default 50). */
  limit?: number;
  /** Where to start; list() pages on from here. */
  offset?: number;
  /** Return only these fields (plus `id`); narrows the record type. */
  fields?: readonly K[];
}

/** A list query: the collection's own filters plus paging and fields. */
export type ListQuery<F, K> = F & ListParams<K>;

/** Options of get(): request options plus a sparse fieldset. */
export interface GetOptions<K> extends RequestOptions {
  /** Return only these fields (plus `id`); narrows the record type. */
  fields?: readonly K[];
}

/** Options of batch(): how refused items and existing external ids are handled. */
export interface BatchOptions extends WriteOptions {
  /** All or nothing: one refused item refuses the batch (a ValidationError with code `batch_failed`). */
  atomic?: boolean;
  /** `update`: an item whose `external_id` names a live record updates it (an upsert). Default `error`. */
  onConflict?: "error" | "update";
}

/** list, listPage, get, create, update, delete, batch and upsert for one collection of records. */
export class ResourceClient<R, C, U, F> {
  readonly #transport: Transport;
  readonly #path: string;

  constructor(transport: Transport, path: string) {
    this.#transport = transport;
    this.#path = path;
  }

  /** Every matching record, page after page as you iterate (SPEC.md 4.2 paging). */
  list<const K extends keyof R & string = keyof R & string>(
    query?: ListQuery<F, K>,
    options?: RequestOptions,
  ): PageIterator<Picked<R, K>> {
    return new PageIterator(
      (offset) => this.listPage<K>({ ...query, offset } as ListQuery<F, K>, options),
      query?.offset ?? 0,
    );
  }

  /** One page: `{ data, meta: { total, limit, offset } }`. */
  listPage<const K extends keyof R & string = keyof R & string>(
    query?: ListQuery<F, K>,
    options?: RequestOptions,
  ): ApiPromise<Page<Picked<R, K>>> {
    return this.#call({ method: "GET", path: this.#path, query: query as QueryValues | undefined, options, envelope: "page" });
  }

  /** One record; revalidated with its remembered ETag, so an unchanged record costs an empty 304. */
  get<const K extends keyof R & string = keyof R & string>(id: number, options?: GetOptions<K>): ApiPromise<Picked<R, K>> {
    return this.#call({ method: "GET", path: this.#item(id), query: { fields: options?.fields }, options, revalidate: true });
  }

  /** Creates a record; `dryRun: true` validates only and returns `{ id: null, created: false, dry_run: true }`. */
  create<const D extends boolean = false>(input: C, options?: WriteOptions & { dryRun?: D }): ApiPromise<CreateResult<D>> {
    return this.#call({ method: "POST", path: this.#path, body: input, options });
  }

  /** Changes only the given fields; returns the changes and the record after them. */
  update(id: number, input: U, options?: ConditionalWriteOptions): ApiPromise<UpdateResult<R>> {
    return this.#call({ method: "PATCH", path: this.#item(id), body: input, options });
  }

  /** Soft-deletes a record; the result lists what is removed and what stays. */
  delete(id: number, options?: ConditionalWriteOptions): ApiPromise<DeleteResult> {
    return this.#call({ method: "DELETE", path: this.#item(id), options });
  }

  /**
   * Writes up to 500 records in order in one request (and one transaction); each item's result
   * says whether it was created, updated, unchanged or refused (with the problem).
   */
  batch(items: readonly C[], options?: BatchOptions): ApiPromise<BatchResult> {
    const body = { items, atomic: options?.atomic ?? false, on_conflict: options?.onConflict ?? "error" };
    return this.#call({ method: "POST", path: `${this.#path}/batch`, body, options });
  }

  /** Creates the record your system knows as `externalId`, or updates it with the fields given. */
  upsert(externalId: string, input: C, options?: ConditionalWriteOptions): ApiPromise<Created | DryRunCreated | UpdateResult<R>> {
    return this.#call({ method: "PUT", path: `${this.#path}/by-external-id/${encodeURIComponent(externalId)}`, body: input, options });
  }

  #call<T>(request: ApiRequest): ApiPromise<T> {
    return new ApiPromise(this.#transport.request<T>(request));
  }

  #item(id: number): string {
    return `${this.#path}/${encodeURIComponent(id)}`;
  }
}
