// Bearer authentication and add-on gates for the data routes.
import { featureOff, unauthorized } from "../refusals/catalogue.ts";
import type { Addon } from "./addons.ts";
import type { Company } from "./company.ts";
import type { CompanyCache } from "./company-cache.ts";

export async function authenticate(companies: CompanyCache, request: Request): Promise<Company> {
  const header = request.headers.get("authorization");
  if (!header) throw unauthorized("Send your API token as `Authorization: Bearer <token>`.");
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw unauthorized("The Authorization header must be `Bearer <token>`.");
  const company = await companies.lookup(match[1]);
  if (!company) throw unauthorized("The token is unknown or revoked.");
  return company;
}

export function requireAddons(company: Company, addon: Addon): void {
  const needed: Addon[] = addon === "api" ? ["api"] : ["api", addon];
  const missing = needed.filter((one) => !company.addons.has(one));
  if (missing.length > 0) throw featureOff(missing);
}
