// The attachments store in an S3-compatible bucket (`ATTACHMENTS_STORE=s3://bucket/prefix`, the
// standard AWS_* variables), spoken to with Bun's built-in S3 client: its writer sends a stream as a
// multipart upload, part by part as the bytes arrive, `slice` reads a range, `delete` removes; no
// SDK package (docs/attachments.md says why). An upload becomes an object only when its multipart
// upload completes; one broken off is aborted, so a bucket never holds a partial file.
import { S3Client } from "bun";
import type { AttachmentStore, ByteRange, Upload } from "./store.ts";

/** S3's least part size (but the last): what the writer holds before it sends a part. */
const PART_BYTES = 5 * 1024 * 1024;

export interface S3Location {
  bucket: string;
  /** Prepended to every key, without a trailing slash (empty: the bucket's root). */
  prefix: string;
}

/** `s3://bucket/some/prefix` → its bucket and prefix. */
export function parseS3Url(url: string): S3Location {
  const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url);
  if (!match)
    throw new Error(`ATTACHMENTS_STORE must be a directory or s3://bucket/prefix, not "${url}"`);
  return { bucket: match[1]!, prefix: match[2]!.replace(/\/+$/, "") };
}

export class S3Store implements AttachmentStore {
  readonly local = false;
  readonly location: string;
  readonly #client: S3Client;
  readonly #prefix: string;

  constructor(where: S3Location, env: Record<string, string | undefined> = process.env) {
    this.location = `s3://${where.bucket}/${where.prefix}`;
    this.#prefix = where.prefix === "" ? "" : `${where.prefix}/`;
    this.#client = new S3Client({
      bucket: where.bucket,
      accessKeyId: env.AWS_ACCESS_KEY_ID,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
      sessionToken: env.AWS_SESSION_TOKEN,
      region: env.AWS_REGION,
      endpoint: env.AWS_ENDPOINT_URL,
    });
  }

  /** The object's key in the bucket. */
  keyOf(key: string): string {
    return `${this.#prefix}${key}`;
  }

  begin(key: string, contentType: string): Upload {
    const writer = this.#client
      .file(this.keyOf(key))
      .writer({ type: contentType, partSize: PART_BYTES, queueSize: 2 });
    let pending = 0;
    let ended = false;
    const remove = () => this.remove(key);
    return {
      async write(chunk) {
        const written = writer.write(chunk);
        if (written instanceof Promise) await written;
        pending += chunk.byteLength;
        // Held bytes go out as a part before more are taken: the upload's memory stays a few parts.
        if (pending >= PART_BYTES) {
          pending = 0;
          await writer.flush();
        }
      },
      async finish() {
        ended = true;
        await writer.end();
      },
      async abort() {
        if (!ended) {
          ended = true;
          await Promise.resolve(writer.end(new Error("upload abandoned"))).catch(() => {});
        }
        await remove().catch(() => {});
      },
    };
  }

  read(key: string, range?: ByteRange): ReadableStream<Uint8Array> {
    const file = this.#client.file(this.keyOf(key));
    return (range ? file.slice(range.start, range.end + 1) : file).stream();
  }

  async remove(key: string): Promise<void> {
    await this.#client.delete(this.keyOf(key));
  }
}
