// Bearer authentication and add-on gates for the data routes.
import { featureOff, invalidToken, unauthorized } from "../refusals/catalogue.ts";
import type { Addon } from "./addons.ts";
import type { Company } from "./company.ts";
import type { CompanyCache } from "./company-cache.ts";
import type { Caller, TokenLookup } from "./tokens.ts";

/** `Bearer <token>` (any case, any spaces around the token); the usual spelling without a regex. */
function bearerToken(header: string): string | undefined {
  if (header.startsWith("Bearer ")) {
    const token = header.slice(7);
    if (token !== "" && !/\s/.test(token)) return token;
  }
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}

/** The caller of the request's token; at once (no promise) when the process remembers the token. */
export function authenticate(companies: CompanyCache, request: Request): Caller | Promise<Caller> {
  const header = request.headers.get("authorization");
  if (!header) throw unauthorized("Send your API token as `Authorization: Bearer <token>`.");
  const token = bearerToken(header);
  if (!token) throw unauthorized("The Authorization header must be `Bearer <token>`.");
  const found = companies.lookup(token);
  return found instanceof Promise ? found.then(callerOf) : callerOf(found);
}

function callerOf(found: TokenLookup): Caller {
  if (!found) throw unauthorized("The token is unknown.");
  if (found.state !== "live") throw invalidToken(found.state);
  return found.caller;
}

export function requireAddons(company: Company, addon: Addon): void {
  if (company.addons.has("api") && (addon === "api" || company.addons.has(addon))) return;
  const needed: Addon[] = addon === "api" ? ["api"] : ["api", addon];
  const missing = needed.filter((one) => !company.addons.has(one));
  if (missing.length > 0) throw featureOff(missing);
}
