// The signing secrets of a webhook endpoint (docs/events-and-webhooks.md): its current one, and
// each one a rotation replaced with an overlap, which keeps signing every delivery beside the
// newer ones until its own announced expiry, however many rotations follow meanwhile; so a
// receiver that still holds any of them verifies every delivery until the expiry it was told.
import { randomBytes } from "node:crypto";

/** A replaced secret and when it stops signing (ISO 8601), as `previous_secrets` stores them. */
export interface EarlierSecret {
  secret: string;
  until: string;
}

/** Replaced secrets signing at once at most: each is one more `v1` in every delivery's header. */
export const MAX_EARLIER_SECRETS = 10;

/** A new signing secret: shown once, at creation or rotation. */
export const newSecret = (): string => `whsec_${randomBytes(24).toString("base64url")}`;

/** The replaced secrets still signing at `now`, newest first. */
export function earlierSecrets(stored: string | null, now = new Date()): EarlierSecret[] {
  if (stored === null) return [];
  return (JSON.parse(stored) as EarlierSecret[]).filter(
    (earlier) => Date.parse(earlier.until) > now.getTime(),
  );
}

/** Every secret that signs a delivery now: the current one first, then each replaced one still live. */
export function signingSecrets(
  endpoint: { secret: string; previous_secrets: string | null },
  now = new Date(),
): string[] {
  return [
    endpoint.secret,
    ...earlierSecrets(endpoint.previous_secrets, now).map((earlier) => earlier.secret),
  ];
}

/** The replaced secrets once the current one is replaced too, signing until `until` (none: not at all). */
export function afterRotation(
  endpoint: { secret: string; previous_secrets: string | null },
  until: Date | null,
  now = new Date(),
): EarlierSecret[] {
  const live = earlierSecrets(endpoint.previous_secrets, now);
  return until === null ? live : [{ secret: endpoint.secret, until: until.toISOString() }, ...live];
}
