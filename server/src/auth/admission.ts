// Admits a data request before its body is read or validated: token, then add-on.
import type { Database } from "../db/client.ts";
import type { RequestContext } from "../http/request-context.ts";
import type { Addon } from "../resources/definition.ts";
import { authenticate, requireAddons } from "./bearer.ts";
import type { Company } from "./company.ts";

/** The response headers of the request (Elysia's `set.headers`); stages add to them. */
export type ResponseHeaders = Record<string, string | number>;

export type Admission = (request: Request, ctx: RequestContext, addon: Addon, headers: ResponseHeaders) => Promise<Company>;

/** A step run once the company is known: metering, rate limits, key checks. */
export type AdmissionStage = (company: Company, ctx: RequestContext, headers: ResponseHeaders) => Promise<void>;

/**
 * Later stages (rate limits, metering) hook in through `afterAuthentication`. A request is
 * admitted once: body parsing asks first on writes, the handler's derive asks again.
 */
export function admission(db: Database, afterAuthentication: AdmissionStage = async () => {}): Admission {
  const admitted = new WeakMap<RequestContext, Promise<Company>>();
  return (request, ctx, addon, headers) => {
    let admitting = admitted.get(ctx);
    if (!admitting) {
      admitting = (async () => {
        const company = await authenticate(db, request, ctx);
        await afterAuthentication(company, ctx, headers);
        requireAddons(company, addon);
        return company;
      })();
      admitted.set(ctx, admitting);
    }
    return admitting;
  };
}
