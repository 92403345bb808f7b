// Where a webhook may be sent: https to a public address. http, and private, loopback, link-local
// or otherwise internal addresses only when the server runs with WEBHOOK_ALLOW_PRIVATE=1
// (development and tests), so an endpoint cannot make the server reach into its own network.
// Checked when an endpoint is saved and again before every attempt (DNS may have changed).
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

export const allowPrivateTargets = (): boolean => process.env.WEBHOOK_ALLOW_PRIVATE === "1";

function ipv4Internal(address: string): boolean {
  const [a = 0, b = 0] = address.split(".").map(Number);
  return a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 198 && (b === 18 || b === 19)) || a >= 224;
}

function ipv6Internal(address: string): boolean {
  const lower = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return ipv4Internal(mapped[1]!);
  return lower === "::" || lower === "::1" || /^f[cd]/.test(lower) || /^fe[89ab]/.test(lower) || lower.startsWith("ff");
}

/** True for addresses a public webhook must not reach. */
export function isInternalAddress(address: string): boolean {
  return isIP(address) === 6 ? ipv6Internal(address) : ipv4Internal(address);
}

/** Why `url` may not receive webhooks, or undefined when it may. */
export async function refusedTarget(url: string): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "must be an absolute URL like https://example.com/hooks";
  }
  const allowPrivate = allowPrivateTargets();
  if (parsed.protocol !== "https:" && !(parsed.protocol === "http:" && allowPrivate)) return "must be an https URL";
  if (parsed.username || parsed.password) return "must not carry a user name or password";
  if (allowPrivate) return undefined;
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((entry) => entry.address);
  } catch {
    return `names a host that does not resolve (${host})`;
  }
  if (addresses.some(isInternalAddress)) return "names a private, loopback or link-local address; webhooks go to public addresses only";
  return undefined;
}
