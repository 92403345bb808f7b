// Admits a data request before its body is read or validated: token, add-on, then rate limit.
import type { RequestContext } from "../http/request-context.ts";
import type { Addon } from "./addons.ts";
import { authenticate, requireAddons } from "./bearer.ts";
import type { Company } from "./company.ts";
import type { CompanyCache } from "./company-cache.ts";
import type { RateLimiter, ResponseHeaders } from "./rate-limit.ts";

export type Admission = (request: Request, ctx: RequestContext, addon: Addon, headers: ResponseHeaders) => Promise<Company>;

export interface AdmissionDeps {
  companies: CompanyCache;
  limiter: RateLimiter;
}

/**
 * A request is admitted once, however many hooks ask (body parsing asks first on writes, the
 * handler's derive asks again). Metered requests (every data request but GET /v1/usage) are
 * marked once the token is known, so refusals after that are counted too.
 */
export function admission(deps: AdmissionDeps, options: { metered: boolean }): Admission {
  const admitted = new WeakMap<RequestContext, Promise<Company>>();
  return (request, ctx, addon, headers) => {
    let admitting = admitted.get(ctx);
    if (!admitting) {
      admitting = (async () => {
        const company = await authenticate(deps.companies, request, ctx);
        ctx.metered = options.metered;
        requireAddons(company, addon);
        await deps.limiter.admit(company, headers);
        return company;
      })();
      admitted.set(ctx, admitting);
    }
    return admitting;
  };
}
