// verifyWebhook: checks an ERP-Signature header (`t=<unix seconds>,v1=<hex HMAC-SHA256(secret,
// "<t>.<raw body>")>`) with Web Crypto, so it runs unchanged on Bun, Node, Deno and browsers.

/** How old (or how far in the future) a signature's timestamp may be. */
export interface VerifyWebhookOptions {
  /** Seconds; default 300. */
  toleranceSeconds?: number;
  /** The current time, for tests. */
  now?: Date;
}

const encoder = new TextEncoder();

function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Compares two strings in time that does not depend on where they differ. */
function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/**
 * True when `signatureHeader` is a valid signature of exactly `rawBody` (the bytes received, before
 * any JSON parsing) with `secret` (or any of several, e.g. the old and the new one during a
 * rotation), made within the tolerance; false otherwise. A header may carry several `v1` values:
 * any that verifies will do.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<boolean> {
  if (!signatureHeader) return false;
  const parts = new Map<string, string[]>();
  for (const part of signatureHeader.split(",")) {
    const [key, ...value] = part.trim().split("=");
    if (key && value.length > 0) parts.set(key, [...(parts.get(key) ?? []), value.join("=")]);
  }
  const timestamp = Number(parts.get("t")?.[0]);
  const signatures = parts.get("v1") ?? [];
  if (!Number.isInteger(timestamp) || signatures.length === 0) return false;
  const now = (options.now ?? new Date()).getTime() / 1000;
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300)) return false;
  const body = typeof rawBody === "string" ? rawBody : new TextDecoder().decode(rawBody);
  for (const one of typeof secret === "string" ? [secret] : secret) {
    const key = await crypto.subtle.importKey(
      "raw",
      encoder.encode(one),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const expected = hex(
      await crypto.subtle.sign("HMAC", key, encoder.encode(`${timestamp}.${body}`)),
    );
    if (signatures.some((signature) => constantTimeEqual(signature, expected))) return true;
  }
  return false;
}
