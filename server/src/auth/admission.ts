// Admits a data request before its body is read or validated: token, then add-on.
import type { Database } from "../db/client.ts";
import type { RequestContext } from "../http/request-context.ts";
import type { Addon } from "../resources/definition.ts";
import { authenticate, requireAddons } from "./bearer.ts";
import type { Company } from "./company.ts";

export type Admission = (request: Request, ctx: RequestContext, addon: Addon) => Promise<Company>;

/**
 * Later stages (rate limits, metering) hook in through `afterAuthentication`. A request is
 * admitted once: body parsing asks first on writes, the handler's derive asks again.
 */
export function admission(db: Database, afterAuthentication: (company: Company, ctx: RequestContext) => Promise<void> = async () => {}): Admission {
  const admitted = new WeakMap<RequestContext, Promise<Company>>();
  return (request, ctx, addon) => {
    let admitting = admitted.get(ctx);
    if (!admitting) {
      admitting = (async () => {
        const company = await authenticate(db, request, ctx);
        await afterAuthentication(company, ctx);
        requireAddons(company, addon);
        return company;
      })();
      admitted.set(ctx, admitting);
    }
    return admitting;
  };
}
