// Signed links to an attachment's bytes (docs/attachments.md): `expires` (unix seconds, at most 15
// minutes ahead) and an HMAC-SHA256 over the attachment's id and that expiry, with a server
// secret. ATTACHMENT_LINK_SECRETS lists secrets, newest first: the first signs, every one
// verifies, so a secret is rotated by putting the new one first and dropping the old one once the
// links it signed have expired (15 minutes); nothing in flight breaks.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** The longest a link lives. */
export const MAX_LINK_SECONDS = 15 * 60;

export class LinkSigner {
  readonly #secrets: readonly string[];
  /** True when no secret was configured: this process made one that no other server knows. */
  readonly ephemeral: boolean;

  constructor(configured: string | undefined) {
    const secrets = (configured ?? "")
      .split(",")
      .map((secret) => secret.trim())
      .filter(Boolean);
    this.ephemeral = secrets.length === 0;
    this.#secrets = this.ephemeral ? [randomBytes(32).toString("base64url")] : secrets;
  }

  #mac(secret: string, id: number, expires: number): string {
    return createHmac("sha256", secret).update(`${id}.${expires}`).digest("base64url");
  }

  /** The signature of a link to attachment `id` valid until `expires`. */
  sign(id: number, expires: number): string {
    return this.#mac(this.#secrets[0]!, id, expires);
  }

  /** True when `signature` is one of the secrets' for `id` and `expires`, and `expires` has not passed. */
  verify(id: number, expires: number, signature: string, now = Date.now()): boolean {
    if (!Number.isSafeInteger(expires) || expires * 1000 <= now) return false;
    if (expires * 1000 > now + (MAX_LINK_SECONDS + 60) * 1000) return false;
    const given = Buffer.from(signature);
    return this.#secrets.some((secret) => {
      const expected = Buffer.from(this.#mac(secret, id, expires));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
  }
}
