// The HTTP of attachments' bytes: the RFC 9530 Content-Digest a client may send with an upload,
// the RFC 6266 Content-Disposition of a download (a UTF-8 name in `filename*`, an ASCII stand-in
// in `filename`) and the single byte range of a Range request (RFC 9110).
import type { ByteRange } from "./store.ts";

/** The digests the server can check, by their RFC 9530 names. */
export const DIGEST_ALGORITHMS = { "sha-256": "sha256", "sha-512": "sha512" } as const;
export type DigestAlgorithm = keyof typeof DIGEST_ALGORITHMS;

/**
 * The digests of a Content-Digest header that the server checks (`sha-256=:…:`, `sha-512=:…:`),
 * base64 as sent; other algorithms are ignored, as RFC 9530 lets a recipient. Undefined when the
 * header cannot be read.
 */
export function parseContentDigest(
  header: string,
): Partial<Record<DigestAlgorithm, string>> | undefined {
  const digests: Partial<Record<DigestAlgorithm, string>> = {};
  for (const member of header.split(",")) {
    const match = /^\s*([a-z0-9-]+)\s*=\s*:([A-Za-z0-9+/]*={0,2}):\s*$/i.exec(member);
    if (!match) return undefined;
    const name = match[1]!.toLowerCase();
    if (Object.hasOwn(DIGEST_ALGORITHMS, name)) digests[name as DigestAlgorithm] = match[2]!;
  }
  return digests;
}

/** `attachment; filename="…"; filename*=UTF-8''…`: the name as typed, for every client. */
export function contentDisposition(filename: string): string {
  // One `_` per character (code point) that is not plain printable ASCII, or that a quoted string would need escaped.
  const fallback = [...filename]
    .map((c) => (/^[\x20-\x7e]$/.test(c) && !/["\\%]/.test(c) ? c : "_"))
    .join("");
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/**
 * The range a `Range` header asks of `size` bytes: a range, `unsatisfiable` (416), or undefined
 * for the whole file (no header, another unit, several ranges: each answered whole, as RFC 9110
 * allows).
 */
export function parseRange(
  header: string | null,
  size: number,
): ByteRange | "unsatisfiable" | undefined {
  if (header === null) return undefined;
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return undefined;
  const [, first = "", last = ""] = match;
  if (first === "" && last === "") return undefined;
  if (first === "") {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size || end < start) return "unsatisfiable";
  return { start, end };
}
