// ERP-Signature: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (docs/events-and-webhooks.md),
// the scheme Stripe made familiar; receivers check it with the SDK's verifyWebhook().
import { createHmac } from "node:crypto";

/** One `v1` per secret: during a rotation's overlap, the new secret's first, then the old one's. */
export function signatureHeader(secrets: readonly string[], body: string, at = new Date()): string {
  const t = Math.floor(at.getTime() / 1000);
  const signatures = secrets.map(
    (secret) => `v1=${createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")}`,
  );
  return `t=${t},${signatures.join(",")}`;
}
