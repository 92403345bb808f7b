// One typed client for any collection: every method is a single call into the shared transport.
import { ApiPromise } from "../core/api-promise.ts";
import type { Expanded, ExpandParams } from "../core/expanded.ts";
import { type Page, PageIterator } from "../core/pagination.ts";
import type {
  ConditionalWriteOptions,
  RequestOptions,
  WriteOptions,
} from "../core/request-options.ts";
import type {
  BatchResult,
  CreateResult,
  DeleteResult,
  Picked,
  RestoreResult,
  UpdateResult,
  UpsertResult,
} from "../core/results.ts";
import { newIdempotencyKey } from "../core/idempotency-key.ts";
import type { Report, ReportQuery } from "../core/report.ts";
import type { ApiRequest, QueryValues, Transport } from "../core/transport.ts";
import type { Usage } from "../generated/types.ts";
import { ImportRun } from "../import/import-run.ts";
import type { ImportOptions, ImportReader, ImportTarget } from "../import/import-types.ts";

/** Paging and sparse-fieldset parameters of list(). */
export interface ListParams<K> {
  /** Page size; the API caps it at 100 (default 50). */
  limit?: number;
  /** Only records whose id is greater than this; list() starts here (default 0, the first record). Not with `sort`. */
  after_id?: number;
  /** A sorted list's meta.next_cursor: the page after it (listPage()); list() follows them by itself. */
  after?: string;
  /** `false` leaves `meta.total` out and skips counting; list() asks for it on its first page only. */
  total?: boolean;
  /** Return only these fields (plus `id`); narrows the record type. */
  fields?: readonly K[];
  /**
   * Filters on your company's custom fields, by key: a value (`cf.union_no=A-1`), any of some
   * choices of a select (`["S", "M"]`), or a range of an integer, decimal, money or date field
   * (`{ lt: "2027-01-01" }`). Sort by one with `sort: ["cf.card_expires_on"]`.
   */
  cf?: CustomFieldFilters;
}

/** A custom field's filter: its value, any of some choices, or a range. */
export type CustomFieldFilter =
  | string
  | number
  | boolean
  | readonly string[]
  | { gt?: string | number; gte?: string | number; lt?: string | number; lte?: string | number };

/** Filters on custom fields, by key (docs/custom-fields.md). */
export type CustomFieldFilters = Readonly<Record<string, CustomFieldFilter>>;

/** Parameters of listPage(): list()'s, or an `offset` instead of `after_id`. */
export interface PageParams<K> extends ListParams<K> {
  /** Start position (offset paging; not with after_id). A deep offset costs the server more than after_id. */
  offset?: number;
}

/** A list() query: the collection's own filters (sort and ranges among them), paging, fields and expand. */
export type ListQuery<F, K, E extends string = never> = F & ListParams<K> & ExpandParams<E>;

/** A listPage() query. */
export type PageQuery<F, K, E extends string = never> = F & PageParams<K> & ExpandParams<E>;

/** Options of get(): request options plus a sparse fieldset and the references to embed. */
export interface GetOptions<K, E extends string = never> extends RequestOptions, ExpandParams<E> {
  /** Return only these fields (plus `id`); narrows the record type. */
  fields?: readonly K[];
}

/** An item of an update batch: the record's id, the fields to change, and optionally `if_match`. */
export type BatchUpdateItem<U> = U & {
  id: number;
  /** The record's ETag or the `updated_at` you saw: the item is refused (412) if the record changed since. */
  if_match?: string;
};

/** Options of batch(): how refused items and existing external ids are handled, and each item's key. */
export interface BatchOptions extends WriteOptions {
  /** All or nothing: one refused item refuses the batch (a ValidationError with code `batch_failed`). */
  atomic?: boolean;
  /** `update`: an item whose `external_id` names a live record updates it (an upsert). Default `error`. */
  onConflict?: "error" | "update";
  /**
   * One key per item: an item runs at most once per key, across batches of any composition (an
   * item whose key is bound answers its stored result, `replayed: true`). Generated when absent,
   * so the call's own retries never write an item twice; give your own (derived from the item and
   * where it comes from) to make a re-run after a crash, in other batches, write nothing twice.
   */
  itemKeys?: readonly string[];
  /**
   * `update`: every item carries the `id` of the record to update (and optionally `if_match`);
   * `restore`: every item is `{ id }` of a deleted record to bring back; default `create`.
   */
  operation?: "create" | "update" | "restore";
  /** Dry-run only: what earlier dry-run batches of the same import would have written (see the API's `preceding`). */
  preceding?: { created?: number; unique?: Record<string, readonly string[]> };
}

/** Rows for import(): an array, a generator, a stream of parsed lines: any iterable, sync or async. */
export type ImportRows<T> = Iterable<T> | AsyncIterable<T>;

/** What import() needs to know of the collection beyond its path. */
export interface ImportSpec {
  /** The fields whose values are unique per company. */
  unique: readonly string[];
  /** The update fields with their hints (`amount, …`, `id`). */
  update: Readonly<Record<string, string>>;
}

/**
 * list, listPage, get, create, update, delete, restore, batch, upsert, import and aggregate for
 * one collection of records `R`; `X` is what each of its `expand` paths embeds (`ProjectEmbeds`),
 * `G` and `M` what its report groups by and computes (`ProjectGroupKey`, `ProjectMetric`).
 */
export class ResourceClient<
  R,
  C,
  U,
  F,
  X = Record<never, never>,
  G extends string = never,
  M extends string = never,
> {
  readonly #transport: Transport;
  readonly #path: string;
  readonly #importSpec: ImportSpec;

  constructor(
    transport: Transport,
    path: string,
    importSpec: ImportSpec = { unique: [], update: {} },
  ) {
    this.#transport = transport;
    this.#path = path;
    this.#importSpec = importSpec;
  }

  /**
   * Every matching record, page after page as you iterate: on after_id, or on the cursors of a
   * sorted list (`sort`).
   */
  list<
    const K extends keyof R & string = keyof R & string,
    const E extends keyof X & string = never,
  >(
    query?: ListQuery<F, K, E>,
    options?: RequestOptions,
  ): PageIterator<Expanded<Picked<R, K>, X, E>> {
    const sorted = (query as { sort?: unknown } | undefined)?.sort !== undefined;
    return new PageIterator(
      (start, withTotal) =>
        this.listPage<K, E>(
          { ...query, ...start, total: withTotal ? undefined : false } as PageQuery<F, K, E>,
          options,
        ),
      sorted ? {} : { after_id: query?.after_id ?? 0 },
      query?.total ?? true,
    );
  }

  /**
   * One page: `{ data, meta: { total, limit, offset } }`, or with `after_id` `{ data, meta: {
   * total, limit, after_id, next_after_id } }`.
   */
  listPage<
    const K extends keyof R & string = keyof R & string,
    const E extends keyof X & string = never,
  >(
    query?: PageQuery<F, K, E>,
    options?: RequestOptions,
  ): ApiPromise<Page<Expanded<Picked<R, K>, X, E>>> {
    return this.#call({
      method: "GET",
      path: this.#path,
      query: query as QueryValues | undefined,
      options,
      envelope: "page",
    });
  }

  /**
   * Counts and totals of the records the filters select, in groups (docs/api.md, "Reports"):
   * `aggregate({ groupBy: ["status"], metrics: ["count", "sum(budget_amount)"], status: "ACTIVE" })`.
   * Money comes as exact decimal text; revalidated with its remembered ETag, so an unchanged
   * report costs an empty 304.
   */
  aggregate<const K extends G = never, const N extends M = never>(
    query?: ReportQuery<F, K, N>,
    options?: RequestOptions,
  ): ApiPromise<Report<K, [N] extends [never] ? Extract<M, "count"> : N>> {
    const { groupBy, metrics, ...filters } = query ?? ({} as ReportQuery<F, K, N>);
    return this.#call({
      method: "GET",
      path: `${this.#path}/aggregate`,
      query: { ...(filters as QueryValues), group_by: groupBy, metrics },
      options,
      envelope: "page",
      revalidate: true,
    });
  }

  /** One record; revalidated with its remembered ETag, so an unchanged record costs an empty 304. */
  get<
    const K extends keyof R & string = keyof R & string,
    const E extends keyof X & string = never,
  >(id: number, options?: GetOptions<K, E>): ApiPromise<Expanded<Picked<R, K>, X, E>> {
    return this.#call({
      method: "GET",
      path: this.#item(id),
      query: { fields: options?.fields, expand: options?.expand },
      options,
      revalidate: true,
    });
  }

  /** Creates a record; `dryRun: true` validates only and returns `{ id: null, created: false, dry_run: true }`. */
  create<const D extends boolean = false>(
    input: C,
    options?: WriteOptions & { dryRun?: D },
  ): ApiPromise<CreateResult<D, R>> {
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
   * Brings a soft-deleted record back as it was (same id, fields and external_id), checked as a
   * create (quota, unique values, references), with what was deleted together with it.
   */
  restore(id: number, options?: WriteOptions): ApiPromise<RestoreResult<R>> {
    return this.#call({ method: "POST", path: `${this.#item(id)}/restore`, options });
  }

  /**
   * Writes up to 500 records in order in one request (and one transaction); each item's result
   * says whether it was created, updated, unchanged or refused (with the problem). With
   * `operation: "update"` each item updates the record its `id` names with the fields it carries;
   * with `operation: "restore"` each item `{ id }` brings a deleted record back.
   */
  batch(
    items: readonly C[],
    options?: BatchOptions & { operation?: "create" },
  ): ApiPromise<BatchResult>;
  batch(
    items: readonly BatchUpdateItem<U>[],
    options: Omit<BatchOptions, "onConflict"> & { operation: "update" },
  ): ApiPromise<BatchResult>;
  batch(
    items: readonly { id: number }[],
    options: Omit<BatchOptions, "onConflict" | "preceding"> & { operation: "restore" },
  ): ApiPromise<BatchResult>;
  batch(
    items: readonly (C | BatchUpdateItem<U> | { id: number })[],
    options?: BatchOptions,
  ): ApiPromise<BatchResult>;
  batch(
    items: readonly (C | BatchUpdateItem<U> | { id: number })[],
    options?: BatchOptions,
  ): ApiPromise<BatchResult> {
    const operation = options?.operation ?? "create";
    const update = operation !== "create";
    const body = {
      ...(update ? { operation } : {}),
      items,
      atomic: options?.atomic ?? false,
      ...(update ? {} : { on_conflict: options?.onConflict ?? "error" }),
      item_keys: options?.itemKeys ?? items.map(() => newIdempotencyKey()),
      ...(options?.preceding ? { preceding: options.preceding } : {}),
    };
    return this.#call({ method: "POST", path: `${this.#path}/batch`, body, options });
  }

  /** Creates the record your system knows as `externalId`, or updates it with the fields given. */
  upsert(
    externalId: string,
    input: C,
    options?: ConditionalWriteOptions,
  ): ApiPromise<UpsertResult<R>> {
    return this.#call({
      method: "PUT",
      path: `${this.#path}/by-external-id/${encodeURIComponent(externalId)}`,
      body: input,
      options,
    });
  }

  /**
   * Imports rows exactly once (docs/bulk-work.md): in batches of up to 500, each row with an item
   * key made from its content and its occurrence among identical rows (the same key the CLI's
   * `erp import` gives the same row), a few batches in flight, paced by the rate limit, retried,
   * with an optional journal of the rows that went through. Iterate the run for one result per row
   * (in the rows' order; the rows the journal knows at once), then read its `summary`; or `await
   * run.done()`. Nothing is sent before.
   */
  import<T extends C>(
    rows: ImportRows<T>,
    options?: ImportOptions<T> & { mode?: "create" | "upsert"; reader?: undefined },
  ): ImportRun<T>;
  import<T extends BatchUpdateItem<U>>(
    rows: ImportRows<T>,
    options: ImportOptions<T> & { mode: "update"; reader?: undefined },
  ): ImportRun<T>;
  import<T>(
    rows: ImportRows<T>,
    options: ImportOptions<T> & { reader: ImportReader<T> },
  ): ImportRun<T>;
  import<T>(rows: ImportRows<T>, options?: ImportOptions<T>): ImportRun<T> {
    return new ImportRun(this.#importTarget(), rows, options);
  }

  #importTarget(): ImportTarget {
    const resource = this.#path.split("/").at(-1) ?? this.#path;
    return {
      resource,
      unique: this.#importSpec.unique,
      updateHints: this.#importSpec.update,
      send: (items, { signal, ...options }) =>
        this.batch(items as readonly C[], {
          ...options,
          ...(signal ? { signal } : {}),
        }).withResponse(),
      readPage: async (afterId, limit) =>
        (
          await this.listPage({ after_id: afterId, limit, total: false } as PageQuery<
            F,
            keyof R & string
          >)
        ).data as unknown as Record<string, unknown>[],
      quotaLimited: async () => {
        const usage = await this.#transport.request<Usage>({ method: "GET", path: "/v1/usage" });
        const quota = (usage.data.quotas as Record<string, { limit: number | null } | undefined>)[
          resource
        ];
        return quota !== undefined && quota.limit !== null;
      },
    };
  }

  #call<T>(request: ApiRequest): ApiPromise<T> {
    return new ApiPromise(this.#transport.request<T>(request));
  }

  #item(id: number): string {
    return `${this.#path}/${encodeURIComponent(id)}`;
  }
}
