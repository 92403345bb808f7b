// Bearer authentication and add-on gates for the data routes.
import { ApiError } from "../http/problem.ts";
import type { RequestContext } from "../http/request-context.ts";
import type { Addon } from "./addons.ts";
import type { Company } from "./company.ts";
import type { CompanyCache } from "./company-cache.ts";

const unauthorized = (detail: string): ApiError =>
  new ApiError(401, "unauthorized", detail, undefined, { "www-authenticate": 'Bearer realm="erp"' });

export async function authenticate(companies: CompanyCache, request: Request, ctx: RequestContext): Promise<Company> {
  const header = request.headers.get("authorization");
  if (!header) throw unauthorized("Send your API token as `Authorization: Bearer <token>`.");
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw unauthorized("The Authorization header must be `Bearer <token>`.");
  const company = await companies.lookup(match[1]);
  if (!company) throw unauthorized("The token is unknown or revoked.");
  ctx.companyId = company.id;
  return company;
}

export function requireAddons(company: Company, addon: Addon): void {
  const missing = [...new Set<Addon>(["api", addon])].filter((needed) => !company.addons.has(needed));
  if (missing.length > 0) {
    throw new ApiError(402, "feature_off", `This endpoint needs the ${missing.join(" and ")} add-on${missing.length > 1 ? "s" : ""}, which your company does not have.`);
  }
}
