// Sends one logical request: headers, idempotency key, timeouts, retries, ETag revalidation and errors.
import type { ApiResult, ResponseInfo } from "./api-promise.ts";
import { errorFromResponse } from "./error-from-response.ts";
import { ApiConnectionError, ApiTimeoutError, ApiUserAbortError, type ErpError } from "./errors.ts";
import { EtagCache } from "./etag-cache.ts";
import { newIdempotencyKey } from "./idempotency-key.ts";
import type { ConditionalWriteOptions } from "./request-options.ts";
import { isRetryable, retryDelayMs, sleep } from "./retries.ts";

/** The subset of `fetch` the SDK calls; inject your own for proxies, logging or tests. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** Query values; arrays are sent comma-separated, undefined and null are left out. */
export type QueryValues = Record<
  string,
  | string
  | number
  | boolean
  | readonly string[]
  | Readonly<Record<string, string | number | undefined>>
  // `cf`: filters on custom fields by key, each a value, choices or a range.
  | Readonly<Record<string, unknown>>
  | null
  | undefined
>;

/** Connection settings shared by every call of one client. */
export interface TransportConfig {
  baseUrl: string;
  token: string;
  fetch: FetchLike;
  maxRetries: number;
  timeoutMs: number;
  headers: Record<string, string>;
  etagCacheSize: number;
}

/** One call as a resource method describes it. */
export interface ApiRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: QueryValues | undefined;
  body?: unknown;
  options?: ConditionalWriteOptions | undefined;
  /** Send the remembered ETag and reuse the remembered body on 304. */
  revalidate?: boolean;
  /** Keep the whole `{data, meta}` list body instead of unwrapping `data`. */
  envelope?: "page";
  /** A body sent as it is (an attachment's bytes) instead of `body` as JSON. */
  raw?: { body: Blob | Uint8Array | ReadableStream<Uint8Array>; contentType: string };
}

interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** The fat core every resource method calls into. */
export class Transport {
  readonly #config: TransportConfig;
  readonly #cache: EtagCache;

  constructor(config: TransportConfig) {
    this.#config = config;
    this.#cache = new EtagCache(config.etagCacheSize);
  }

  /** Runs the request with retries and returns its `data` member (or list body), or throws an ErpError. */
  async request<T>(request: ApiRequest): Promise<ApiResult<T>> {
    const url = this.#url(request.path, request.query);
    const cached = request.revalidate ? this.#cache.get(url) : undefined;
    const headers = this.#headers(request, cached?.etag);
    const options = request.options ?? {};
    // A stream is read once: a request that sends one cannot be sent again.
    const once = request.raw?.body instanceof ReadableStream;
    const maxRetries = once ? 0 : (options.maxRetries ?? this.#config.maxRetries);
    const init = {
      method: request.method,
      headers,
      body: request.raw
        ? (request.raw.body as BodyInit)
        : request.body === undefined
          ? null
          : JSON.stringify(request.body),
      // What fetch asks of a request whose body is a stream (Node, Deno, browsers).
      ...(once ? { duplex: "half" } : {}),
    } as RequestInit;
    for (let retry = 0; ; retry++) {
      let error: ErpError;
      try {
        const raw = await this.#attempt(
          url,
          init,
          options.timeoutMs ?? this.#config.timeoutMs,
          options.signal,
        );
        if (raw.status === 304 && cached) return result<T>(request, { ...raw, text: cached.body });
        if (raw.status < 400) {
          const etag = raw.headers.get("etag");
          if (request.revalidate && etag) this.#cache.set(url, { etag, body: raw.text });
          return result<T>(request, raw);
        }
        if (raw.status === 404) this.#cache.delete(url);
        error = errorFromResponse(raw.status, parseJson(raw.text), raw.headers);
      } catch (thrown) {
        if (!(thrown instanceof ApiConnectionError)) throw thrown;
        error = thrown;
      }
      const delay =
        retry < maxRetries && isRetryable(error) ? retryDelayMs(retry, error.headers) : undefined;
      if (delay === undefined) throw error;
      await sleep(delay, options.signal).catch((reason: unknown) => {
        throw abortError(reason);
      });
    }
  }

  /**
   * Sends a GET whose answer is not JSON (an attachment's bytes) and returns the response once its
   * headers came (within the timeout), its body unread: a stream for the caller. Not retried (the
   * caller reads the body); an error answer throws its ErpError.
   */
  async open(request: ApiRequest): Promise<Response> {
    const url = this.#url(request.path, request.query);
    const headers = this.#headers(request, undefined);
    headers.set("accept", "*/*");
    const options = request.options ?? {};
    const controller = new AbortController();
    const timeoutMs = options.timeoutMs ?? this.#config.timeoutMs;
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const onAbort = (): void => controller.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    let response: Response;
    try {
      response = await this.#config.fetch(url, {
        method: request.method,
        headers,
        signal: controller.signal,
      });
    } catch (cause) {
      if (options.signal?.aborted) throw abortError(options.signal.reason);
      throw new ApiConnectionError({
        status: undefined,
        code: "connection_error",
        message: `Cannot reach ${request.method} ${url}: ${describe(cause)}`,
        cause,
      });
    } finally {
      clearTimeout(timer);
    }
    if (response.status < 400) return response;
    options.signal?.removeEventListener("abort", onAbort);
    throw errorFromResponse(response.status, parseJson(await response.text()), response.headers);
  }

  #url(path: string, query: QueryValues | undefined): string {
    const url = new URL(this.#config.baseUrl.replace(/\/+$/, "") + path);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      if (name === "cf" && typeof value === "object" && !Array.isArray(value)) {
        // Custom fields: `cf: {size: ["S", "M"], due: {lt: "2027-01-01"}}` is cf.size=S,M&cf.due[lt]=….
        for (const [key, filter] of Object.entries(value)) this.#setQuery(url, `cf.${key}`, filter);
        continue;
      }
      if (Array.isArray(value)) {
        url.searchParams.set(name, value.join(","));
      } else if (typeof value === "object") {
        // A range (deepObject): `hired_on: {gte: "2024-01-01"}` is hired_on[gte]=2024-01-01.
        for (const [key, bound] of Object.entries(value)) {
          if (bound !== undefined && bound !== null)
            url.searchParams.set(`${name}[${key}]`, String(bound));
        }
      } else {
        url.searchParams.set(name, String(value));
      }
    }
    return url.toString();
  }

  /** One parameter: a list as a,b; an object as name[key]=value (a range); else the value. */
  #setQuery(url: URL, name: string, value: unknown): void {
    if (value === undefined || value === null) return;
    if (Array.isArray(value)) url.searchParams.set(name, value.join(","));
    else if (typeof value === "object")
      for (const [key, bound] of Object.entries(value)) {
        if (bound !== undefined && bound !== null)
          url.searchParams.set(`${name}[${key}]`, String(bound));
      }
    else url.searchParams.set(name, String(value));
  }

  #headers(request: ApiRequest, etag: string | undefined): Headers {
    const options = request.options ?? {};
    const headers = new Headers({
      accept: "application/json",
      authorization: `Bearer ${this.#config.token}`,
      ...this.#config.headers,
      ...options.headers,
    });
    if (request.raw) headers.set("content-type", request.raw.contentType);
    else if (request.body !== undefined) headers.set("content-type", "application/json");
    if (request.method !== "GET") {
      // Generated once per call, before the first attempt, so every retry is recognised as the same write.
      headers.set("idempotency-key", options.idempotencyKey ?? newIdempotencyKey());
      if (options.dryRun) headers.set("x-dry-run", "1");
      if (options.ifMatch !== undefined) headers.set("if-match", options.ifMatch);
    }
    if (etag !== undefined) headers.set("if-none-match", etag);
    return headers;
  }

  /** One try: the timeout covers reading the body too, since a stalled body is as bad as no answer. */
  async #attempt(
    url: string,
    init: RequestInit,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<RawResponse> {
    if (signal?.aborted) throw abortError(signal.reason);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = (): void => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const response = await this.#config.fetch(url, { ...init, signal: controller.signal });
      return { status: response.status, headers: response.headers, text: await response.text() };
    } catch (cause) {
      if (signal?.aborted) throw abortError(signal.reason);
      if (timedOut) {
        throw new ApiTimeoutError({
          status: undefined,
          code: "timeout",
          message: `No response from ${init.method} ${url} within ${timeoutMs} ms`,
          cause,
        });
      }
      throw new ApiConnectionError({
        status: undefined,
        code: "connection_error",
        message: `Cannot reach ${init.method} ${url}: ${describe(cause)}`,
        cause,
      });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }
}

function result<T>(request: ApiRequest, raw: RawResponse): ApiResult<T> {
  const body = parseJson(raw.text) as { data?: unknown } | undefined;
  const response: ResponseInfo = {
    status: raw.status,
    headers: raw.headers,
    requestId: raw.headers.get("x-request-id") ?? undefined,
    etag: raw.headers.get("etag") ?? undefined,
    replayed: raw.headers.get("idempotent-replayed") === "true",
  };
  return { data: (request.envelope === "page" ? body : body?.data) as T, response };
}

function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function abortError(reason: unknown): ApiUserAbortError {
  return new ApiUserAbortError({
    status: undefined,
    code: "aborted",
    message: "The request was aborted",
    cause: reason,
  });
}

/**
 * The cause as each runtime reports it: Node wraps the socket error ("fetch failed", cause
 * "connect ECONNREFUSED 127.0.0.1:9"), Bun and Deno say it in the message (with a `code`), and
 * browsers only ever say "Failed to fetch" (the URL in our message is then the useful part).
 */
function describe(cause: unknown): string {
  const parts: string[] = [];
  for (
    let current = cause, depth = 0;
    current !== undefined && current !== null && depth < 4;
    depth++
  ) {
    if (!(current instanceof Error)) {
      parts.push(String(current));
      break;
    }
    const code = (current as { code?: unknown }).code;
    const message = current.message || current.name;
    parts.push(
      typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message,
    );
    current = current.cause;
  }
  return parts.join(": ");
}
