// Attachments (docs/attachments.md): files on records. `erp.<resource>.attachments(id)` uploads to
// a record and lists its files; `erp.attachments` reads, downloads (as a stream), links and deletes
// one. Only web-standard APIs (fetch, Blob, ReadableStream), so it runs on Bun, Node, Deno and in
// browsers.
import { ApiPromise, type ApiResult } from "../core/api-promise.ts";
import type { Page } from "../core/pagination.ts";
import type { RequestOptions, WriteOptions } from "../core/request-options.ts";
import type { Transport } from "../core/transport.ts";
import type {
  Attachment,
  AttachmentDelete,
  AttachmentLink,
  AttachmentUpload,
} from "../generated/types.ts";

/**
 * What an upload sends: the file's bytes, whole or as a stream (a stream is sent once, never
 * retried; in a browser it is read into a Blob first, see `sendable`).
 */
export type AttachmentData = Blob | Uint8Array | ReadableStream<Uint8Array>;

export interface UploadOptions extends WriteOptions {
  /** The name the file is downloaded under (required). */
  filename: string;
  /** Its media type; a Blob's own `type` when left out, else application/octet-stream. */
  contentType?: string;
  /** RFC 9530 `Content-Digest` to have the server check (`sha-256=:<base64>:`); 422 when it does not match. */
  contentDigest?: string;
}

/**
 * What fetch can send of `data`. Browsers stream a request body only over HTTP/2 or later
 * (Chromium: a stream sent over HTTP/1.1 fails as "Failed to fetch") or not at all (Firefox,
 * Safari), so in a browser a stream is first read into a Blob, which the browser may keep on disk
 * rather than in memory; every other runtime sends it as it is read.
 */
async function sendable(
  data: AttachmentData,
): Promise<Blob | Uint8Array | ReadableStream<Uint8Array>> {
  return data instanceof ReadableStream && inBrowser() ? await new Response(data).blob() : data;
}

/** A page or a worker of a browser (Deno, Node and Bun have neither a document nor importScripts). */
function inBrowser(): boolean {
  const scope = globalThis as { document?: unknown; importScripts?: unknown };
  return scope.document !== undefined || typeof scope.importScripts === "function";
}

/** The attachments of one record: `erp.projects.attachments(7)`. */
export class RecordAttachments {
  readonly #transport: Transport;
  readonly #path: string;

  constructor(transport: Transport, recordPath: string) {
    this.#transport = transport;
    this.#path = `${recordPath}/attachments`;
  }

  /** Stores `data` as a file of the record (at most 100 MiB); a dry-run stores nothing. */
  upload(data: AttachmentData, options: UploadOptions): ApiPromise<AttachmentUpload> {
    const { filename, contentType, contentDigest, ...rest } = options;
    const type =
      contentType ||
      (typeof Blob !== "undefined" && data instanceof Blob && data.type) ||
      "application/octet-stream";
    const send = async (): Promise<ApiResult<AttachmentUpload>> =>
      this.#transport.request<AttachmentUpload>({
        method: "POST",
        path: this.#path,
        query: { filename },
        raw: { body: await sendable(data), contentType: type },
        options: contentDigest
          ? { ...rest, headers: { ...rest.headers, "content-digest": contentDigest } }
          : rest,
      });
    return new ApiPromise(send());
  }

  /** One page of the record's attachments (metadata), oldest first. */
  listPage(
    query: { limit?: number; offset?: number } = {},
    options?: RequestOptions,
  ): ApiPromise<Page<Attachment>> {
    return new ApiPromise(
      this.#transport.request<Page<Attachment>>({
        method: "GET",
        path: this.#path,
        query,
        options,
        envelope: "page",
      }),
    );
  }

  /** Every attachment of the record, page after page. */
  async *list(options?: RequestOptions): AsyncGenerator<Attachment> {
    for (let offset = 0; ; ) {
      const page = await this.listPage({ limit: 100, offset }, options);
      yield* page.data;
      offset += page.data.length;
      if (page.data.length === 0 || offset >= (page.meta.total ?? offset)) return;
    }
  }
}

/** One attachment's bytes as they stream in, with what the answer says of them. */
export interface AttachmentDownload {
  body: ReadableStream<Uint8Array>;
  /** 200 for the whole file, 206 for a range. */
  status: number;
  contentType: string;
  /** Bytes in `body`. */
  size: number;
  etag: string | null;
}

/** `erp.attachments`: one attachment by its id. */
export class AttachmentsClient {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  #path(id: number, rest = ""): string {
    return `/v1/attachments/${encodeURIComponent(id)}${rest}`;
  }

  /** Its metadata. */
  get(id: number, options?: RequestOptions): ApiPromise<Attachment> {
    return new ApiPromise(
      this.#transport.request<Attachment>({ method: "GET", path: this.#path(id), options }),
    );
  }

  /** Its bytes as a stream; `range: {start, end}` (inclusive) for part of them. */
  async download(
    id: number,
    options: RequestOptions & { range?: { start: number; end?: number } } = {},
  ): Promise<AttachmentDownload> {
    const { range, ...rest } = options;
    const headers = range
      ? { ...rest.headers, range: `bytes=${range.start}-${range.end ?? ""}` }
      : rest.headers;
    const response = await this.#transport.open({
      method: "GET",
      path: this.#path(id, "/content"),
      options: { ...rest, headers },
    });
    return {
      body: response.body ?? new ReadableStream({ start: (controller) => controller.close() }),
      status: response.status,
      contentType: response.headers.get("content-type") ?? "application/octet-stream",
      size: Number(response.headers.get("content-length") ?? 0),
      etag: response.headers.get("etag"),
    };
  }

  /** A URL that serves its bytes without a token for `expiresIn` seconds (at most 900, the default). */
  link(
    id: number,
    options: RequestOptions & { expiresIn?: number } = {},
  ): ApiPromise<AttachmentLink> {
    const { expiresIn, ...rest } = options;
    return new ApiPromise(
      this.#transport.request<AttachmentLink>({
        method: "POST",
        path: this.#path(id, "/link"),
        query: { expires_in: expiresIn },
        options: rest,
      }),
    );
  }

  /** Deletes it (its bytes too). */
  delete(id: number, options?: WriteOptions): ApiPromise<AttachmentDelete> {
    return new ApiPromise(
      this.#transport.request<AttachmentDelete>({
        method: "DELETE",
        path: this.#path(id),
        options,
      }),
    );
  }
}
