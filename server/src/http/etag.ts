// Strong ETags derived from the exact bytes of a representation.

/** SHA-256 of the bytes, base64url, first 27 characters (Bun's one-call hash: node:crypto's costs twice it). */
export function etagOf(body: string): string {
  return `"${Bun.CryptoHasher.hash("sha256", body, "base64url").slice(0, 27)}"`;
}

/** JSON.stringify's replacer that leaves out every `updated_at` member. */
const timeless = (key: string, value: unknown): unknown =>
  key === "updated_at" ? undefined : value;

/**
 * The ETag of a document sent to a token that does not see every field (docs/tokens.md): taken
 * from it without its records' `updated_at`, which a change to a field it does not see moves too,
 * so the tag changes only when something the token sees does.
 */
export const untimedEtagOf = (document: unknown): string =>
  etagOf(JSON.stringify(document, timeless));

/**
 * True when an If-None-Match / If-Match header lists the tag (or is `*`). RFC 9110: If-None-Match
 * compares weakly (W/"x" matches "x"); If-Match compares strongly, so a weak tag never matches.
 */
export function etagMatches(
  header: string | null,
  etag: string,
  comparison: "weak" | "strong" = "weak",
): boolean {
  if (header === null) return false;
  return header.split(",").some((candidate) => {
    const tag = candidate.trim();
    return tag === "*" || tag === etag || (comparison === "weak" && tag === `W/${etag}`);
  });
}
