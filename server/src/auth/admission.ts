// Admits a data request before its body is read or validated: token, add-on, then rate limit. An
// admitted request counts against its company's rate limit unless it is refused later or replayed
// (it gives its unit back: http/give-back.ts), and, on metered routes, in its usage.
import { Elysia } from "elysia";
import { giveBack, onGiveBack } from "../http/give-back.ts";
import { requestContext, WRITE_METHODS, type RequestContext } from "../http/request-context.ts";
import type { Addon } from "./addons.ts";
import { authenticate, requireAddons } from "./bearer.ts";
import { noteCompany } from "../telemetry/request-facts.ts";
import type { Company } from "./company.ts";
import type { CompanyCache } from "./company-cache.ts";
import type { RateLimiter, ResponseHeaders } from "./rate-limit.ts";
import type { RouteScopes } from "./route-scopes.ts";
import { satisfies } from "./scopes.ts";
import type { Caller } from "./tokens.ts";

/** Counts a company's metered requests (the usage meter). */
export interface RequestCounter {
  /** One request of the company, dry-run write or not. */
  count(companyId: number, receivedAt: number, dryRunWrite: boolean): void;
  /** A request counted by `count` turned out to be a replay: it counts as a replay instead. */
  countAsReplay(companyId: number, receivedAt: number): void;
}

export class Admission {
  /** `counter` meters what this admission admits; GET /v1/usage is admitted without one. */
  constructor(
    private readonly companies: CompanyCache,
    private readonly limiter: RateLimiter,
    private readonly scopes: RouteScopes,
    private readonly counter?: RequestCounter,
  ) {}

  /**
   * The caller (company and token) the request is admitted for, else 401, 402, 429, or for a token
   * without the scope `route` needs 404 or 403 (route-scopes.ts); sets the RateLimit headers.
   * Metered from the moment the token is known, so the refusals after that count too (a refused
   * dry-run as a plain request: it was no write).
   */
  async admit(
    request: Request,
    ctx: RequestContext,
    addon: Addon,
    headers: ResponseHeaders,
    route: string,
    params: Record<string, string>,
  ): Promise<Caller> {
    // Both answer at once (no promise) for a remembered token and an unlimited plan: awaited only
    // when they did not, each await being one more suspension of the request.
    const authenticated = authenticate(this.companies, request);
    const caller = authenticated instanceof Promise ? await authenticated : authenticated;
    noteCompany(request, caller.company.id);
    const need = this.scopes.need(request.method, route);
    const granted = satisfies(caller.token.scopes, need.anyOf);
    this.counter?.count(
      caller.company.id,
      ctx.receivedAt,
      granted && ctx.dryRun && WRITE_METHODS.has(request.method),
    );
    requireAddons(caller.company, addon);
    const limited = this.limiter.admit(caller.company, headers);
    const back = limited instanceof Promise ? await limited : limited;
    // A refusal from here on gives the request back (http/errors.ts).
    if (back) onGiveBack(request, back);
    if (!granted) await this.scopes.refuse(need, caller, params);
    return caller;
  }

  /** A replay costs the company nothing: its request goes back to the rate limit and counts as a replay. */
  refund(request: Request, company: Company, ctx: RequestContext): void {
    giveBack(request, "replayed");
    this.counter?.countAsReplay(company.id, ctx.receivedAt);
  }
}

/**
 * The app a group of data routes is built on: each request is admitted once, before anything else
 * of it is read, and its handlers get the company. Elysia parses no body here: a write reads its
 * own once it is admitted (routes/route-context.ts), so a malformed body from a caller without a
 * valid token is 401, and a refusal of the body is never wrapped as a parse failure.
 */
export function admitted(name: string, addon: Addon, admission: Admission) {
  return new Elysia({ name })
    .use(requestContext)
    .onParse(() => null)
    .derive(async ({ request, ctx, set, route, params }) => {
      const caller = await admission.admit(request, ctx, addon, set.headers, route, params);
      return { company: caller.company, token: caller.token };
    });
}

export type AdmittedApp = ReturnType<typeof admitted>;
