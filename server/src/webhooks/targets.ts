// Where a webhook may be sent: https to public addresses. http, and private, loopback, link-local
// or other special-purpose addresses, only when the server runs with WEBHOOK_ALLOW_PRIVATE=1
// (development and tests), so an endpoint cannot make the server reach into its own network.
// Checked when an endpoint is saved, and again at every attempt: the host is resolved, every
// address is checked, and the attempt connects only to those addresses (send.ts), so an answer
// that changes in between (DNS rebinding) never leads it anywhere unchecked.
import { isPublicAddress } from "./addresses.ts";
import { resolveHost, type ResolvedAddress } from "./resolver.ts";

export const allowPrivateTargets = (): boolean => process.env.WEBHOOK_ALLOW_PRIVATE === "1";

/** How a developer gets a local receiver accepted: the refusals name the setting. */
const DEVELOPMENT = "a server started with WEBHOOK_ALLOW_PRIVATE=1 (for development) accepts";

/** A URL that may receive webhooks now, and the checked addresses of its host. */
export interface Target {
  url: URL;
  addresses: ResolvedAddress[];
}

export type TargetCheck = { target: Target } | { refused: string };

const PORT_RANGE = "must have a port from 1 to 65535, or none (the scheme's own)";
/** The port an authority names, as written (the URL parser refuses one above 65535). */
const WRITTEN_PORT = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*:(\d+)(?=[/?#]|$)/i;

/** The URL as a target, or why it may not be one (a sentence that follows "url"). */
export async function checkTarget(url: string): Promise<TargetCheck> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return {
      refused:
        Number(WRITTEN_PORT.exec(url)?.[1] ?? 0) > 65535
          ? PORT_RANGE
          : "must be an absolute URL like https://example.com/hooks",
    };
  }
  // The URL parser takes port 0, which no receiver listens on (a probe of what else answers).
  if (parsed.port === "0") return { refused: PORT_RANGE };
  const allowPrivate = allowPrivateTargets();
  if (parsed.protocol !== "https:" && !(parsed.protocol === "http:" && allowPrivate))
    return {
      refused:
        parsed.protocol === "http:"
          ? `must be an https URL; ${DEVELOPMENT} http and private addresses`
          : "must be an https URL",
    };
  if (parsed.username || parsed.password)
    return { refused: "must not carry a user name or password" };
  // The URL parser writes IPv6 literals in brackets, and IPv4 in any spelling as a.b.c.d.
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolveHost(host);
  } catch {
    return { refused: `names a host that does not resolve (${host})` };
  }
  if (addresses.length === 0) return { refused: `names a host that does not resolve (${host})` };
  if (!allowPrivate && !addresses.every((entry) => isPublicAddress(entry.address))) {
    return {
      refused:
        "names a private, loopback, link-local or other special-purpose address; webhooks go to " +
        `public addresses only (${DEVELOPMENT} them)`,
    };
  }
  return { target: { url: parsed, addresses } };
}
