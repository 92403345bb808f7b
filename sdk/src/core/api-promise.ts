// The promise every method returns: awaits to the data, and withResponse() also yields the HTTP details.

/** What a call's HTTP response said besides its data. */
export interface ResponseInfo {
  /** 2xx, or 304 when get() revalidated its cached record. */
  status: number;
  headers: Headers;
  /** `X-Request-Id`, to quote in a support request. */
  requestId: string | undefined;
  /** The read's `ETag`: pass it as `ifMatch` to update or delete only an unchanged record. */
  etag: string | undefined;
  /** True when the server replayed the stored result of an earlier call with the same idempotency key. */
  replayed: boolean;
}

/** The data of a call with the response it came from. */
export interface ApiResult<T> {
  data: T;
  response: ResponseInfo;
}

/**
 * A Promise of the data that can also give the response: `const { data, response } = await p.withResponse()`.
 * A real Promise of the data, so `instanceof Promise` and promise utilities keep working.
 */
export class ApiPromise<T> extends Promise<T> {
  readonly #result: Promise<ApiResult<T>>;

  // then() derives plain Promises: this constructor takes a result, not an executor.
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  constructor(result: Promise<ApiResult<T>>) {
    super((resolve, reject) => result.then((r) => resolve(r.data), reject));
    this.#result = result;
  }

  /** The data together with the status, headers, request id, ETag and replay flag. */
  withResponse(): Promise<ApiResult<T>> {
    // The caller now handles failure through the returned promise; the data promise must not report it again.
    this.catch(() => {});
    return this.#result;
  }
}
