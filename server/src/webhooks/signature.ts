// ERP-Signature: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (docs/events-and-webhooks.md),
// the scheme Stripe made familiar; receivers check it with the SDK's verifyWebhook().
import { createHmac, randomBytes } from "node:crypto";

/** One `v1` per secret: during a rotation's overlap, the new secret's first, then the old one's. */
export function signatureHeader(secrets: readonly string[], body: string, at = new Date()): string {
  const t = Math.floor(at.getTime() / 1000);
  const signatures = secrets.map(
    (secret) => `v1=${createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")}`,
  );
  return `t=${t},${signatures.join(",")}`;
}

/** The secrets that sign a delivery now: the endpoint's, and a rotated one until its overlap ends. */
export function signingSecrets(
  endpoint: { secret: string; previous_secret: string | null; previous_secret_until: Date | null },
  now = new Date(),
): string[] {
  const overlapping =
    endpoint.previous_secret !== null &&
    endpoint.previous_secret_until !== null &&
    endpoint.previous_secret_until.getTime() > now.getTime();
  return overlapping ? [endpoint.secret, endpoint.previous_secret!] : [endpoint.secret];
}

/** A new signing secret: shown once, at creation or rotation. */
export const newSecret = (): string => `whsec_${randomBytes(24).toString("base64url")}`;
