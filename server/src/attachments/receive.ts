// An upload's body, taken from the request as it arrives (Bun's own stream of it: nothing is
// buffered but the chunk in hand and what the store holds before it sends; the chunks done with are
// collected as it goes), hashed on the way and stopped at the size limit. The upload is kept only
// when the body arrived whole, within the limit and matching the Content-Digest the client sent;
// otherwise whatever was stored of it is dropped.
import { CryptoHasher } from "bun";
import { digestMismatch, fileTooLarge } from "../refusals/catalogue.ts";
import { DIGEST_ALGORITHMS, type DigestAlgorithm, parseContentDigest } from "./content-headers.ts";
import type { Upload } from "./store.ts";

/**
 * Every this many bytes received, a garbage collection is asked for (Bun.gc(false): scheduled, not
 * waited for). Each chunk of the body is a buffer of its own, and its memory comes back only when the
 * collector runs, which a heap that barely grows seldom asks for: without it a 100 MiB upload raised
 * the server's RSS by 35-40 MiB over idle, with it by 10-15 (bench/README.md, "Attachments").
 */
const COLLECT_EVERY_BYTES = 4 * 1024 * 1024;

/** The most one attachment holds. */
export const MAX_FILE_BYTES = 100 * 1024 * 1024;

export interface Received {
  size: number;
  /** SHA-256 of the bytes, hex. */
  sha256: string;
}

/** The digests a Content-Digest header asks to check; 422 digest_mismatch when it cannot be read. */
export function expectedDigests(header: string | null): Partial<Record<DigestAlgorithm, string>> {
  if (header === null) return {};
  const digests = parseContentDigest(header);
  if (!digests)
    throw digestMismatch(
      "Content-Digest could not be read: send it as RFC 9530 says, e.g. `sha-256=:<base64 of the SHA-256 of the body>:`.",
    );
  return digests;
}

/**
 * Streams `body` into `upload` (or nowhere, for a dry-run), hashing it, at most MAX_FILE_BYTES;
 * checks the expected digests. On any failure (too large, a mismatch, a client that went away) the
 * upload is aborted and the error thrown; on success the upload is finished.
 */
export async function receive(
  body: ReadableStream<Uint8Array> | null,
  upload: Upload | undefined,
  expected: Partial<Record<DigestAlgorithm, string>>,
): Promise<Received> {
  const sha256 = new CryptoHasher("sha256");
  const others = (Object.keys(expected) as DigestAlgorithm[])
    .filter((name) => name !== "sha-256")
    .map((name) => ({ name, hasher: new CryptoHasher(DIGEST_ALGORITHMS[name]) }));
  let size = 0;
  let uncollected = 0;
  const reader = body?.getReader();
  try {
    for (;;) {
      if (!reader) break;
      const { value, done } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_FILE_BYTES) throw fileTooLarge(MAX_FILE_BYTES);
      sha256.update(value);
      for (const other of others) other.hasher.update(value);
      await upload?.write(value);
      uncollected += value.byteLength;
      if (uncollected >= COLLECT_EVERY_BYTES) {
        uncollected = 0;
        Bun.gc(false);
      }
    }
    const digest = sha256.digest();
    checkDigest("sha-256", expected["sha-256"], digest);
    for (const other of others)
      checkDigest(other.name, expected[other.name], other.hasher.digest());
    await upload?.finish();
    return { size, sha256: digest.toString("hex") };
  } catch (error) {
    await reader?.cancel().catch(() => {});
    await upload?.abort();
    throw error;
  }
}

function checkDigest(name: DigestAlgorithm, expected: string | undefined, actual: Buffer): void {
  if (expected === undefined) return;
  const got = actual.toString("base64");
  if (got !== expected)
    throw digestMismatch(
      `The body's ${name} is :${got}:, not the :${expected}: its Content-Digest says; nothing was kept.`,
    );
}
