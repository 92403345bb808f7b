// Scopes (docs/tokens.md): what a token may do. An operation needs one scope, or any one of a few
// (a lookup: any read scope), or none (any token); a token holds a few scopes, each granting
// itself and what it implies: `<name>:write` grants `<name>:read`; `read` and `write` grant every
// resource's read or write scope, `sensitive` every resource's sensitive scope (its pay and tax
// fields, which no read or write scope reaches); `*` grants everything.

/** Scope families that are not resources: `read` and `write` do not reach them. */
const NOT_RESOURCES: ReadonlySet<string> = new Set(["events", "webhooks", "usage", "tokens"]);

export const SHORTHANDS = ["read", "write", "sensitive", "*"] as const;

/** The scopes an operation accepts, any one of them; empty: any token. */
export type ScopeRequirement = readonly string[];

/** True when a token holding `held` may use what `needed` (one concrete scope) guards. */
export function grants(held: ReadonlySet<string>, needed: string): boolean {
  if (held.has("*") || held.has(needed)) return true;
  const colon = needed.indexOf(":");
  const family = needed.slice(0, colon);
  const access = needed.slice(colon + 1);
  if (access === "read" && held.has(`${family}:write`)) return true;
  if (NOT_RESOURCES.has(family)) return false;
  if (access === "sensitive") return held.has("sensitive");
  return held.has("write") || (access === "read" && held.has("read"));
}

/** True when `held` meets `requirement`. */
export function satisfies(held: ReadonlySet<string>, requirement: ScopeRequirement): boolean {
  if (requirement.length === 0) return true;
  for (const needed of requirement) if (grants(held, needed)) return true;
  return false;
}

/**
 * The concrete scopes a scope as written stands for, among `known` (every scope an operation
 * declares): itself, or for a shorthand everything it grants. A token may grant another one only
 * what it holds itself, so each of these must be granted to it.
 */
export function expandScope(scope: string, known: readonly string[]): string[] {
  if (!SHORTHANDS.includes(scope as (typeof SHORTHANDS)[number])) return [scope];
  return known.filter((one) => grants(new Set([scope]), one));
}
