// ERP-Signature: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (docs/events-and-webhooks.md),
// the scheme Stripe made familiar; receivers check it with the SDK's verifyWebhook().
import { createHmac, randomBytes } from "node:crypto";

export function signatureHeader(secret: string, body: string, at = new Date()): string {
  const t = Math.floor(at.getTime() / 1000);
  const v1 = createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
  return `t=${t},v1=${v1}`;
}

/** A new signing secret: shown once, at creation or rotation. */
export const newSecret = (): string => `whsec_${randomBytes(24).toString("base64url")}`;
