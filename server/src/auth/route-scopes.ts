// What each admitted route needs of a token, read from the routes themselves: the scopes its
// OpenAPI security requirement names (operationDetail puts them there), so the document and the
// check cannot disagree. A token without them is refused only once the records its path names
// are settled: another company's id (or none) stays 404, so a 403 never tells that an id exists.
import { OWN_TOKEN } from "../http/operation-docs.ts";
import { insufficientScope, notFound } from "../refusals/catalogue.ts";
import type { ScopeRequirement } from "./scopes.ts";
import type { Caller } from "./tokens.ts";

/** The records of one collection, as a path names them (`/v1/workers/:id`). */
export interface RecordOwner {
  /** How the 404 names one (`worker`). */
  what: string;
  /** True when the company has (or had) this record. */
  exists(companyId: number, id: number): Promise<boolean>;
}

interface PathId {
  param: string;
  owner: RecordOwner;
}

interface RouteNeed {
  anyOf: ScopeRequirement;
  ids: readonly PathId[];
  ownToken: boolean;
}

interface RouteLike {
  method: string;
  path: string;
  hooks: { detail?: Record<string | symbol, unknown> };
}

const ID_PARAM = /^(id|[a-z_]+_id)$/;

export class RouteScopes {
  /** Path as registered → method → what it needs. */
  readonly #routes = new Map<string, Map<string, RouteNeed>>();
  /** Every concrete scope some operation needs, sorted. */
  known: readonly string[] = [];

  /**
   * Reads every route's requirement; `owners` names the records of each collection a path id may
   * point into. Throws on a path id of a collection it does not know (a 403 could leak it).
   */
  load(routes: readonly RouteLike[], owners: Readonly<Record<string, RecordOwner>>): void {
    const known = new Set<string>();
    for (const route of routes) {
      const security = route.hooks.detail?.security as { bearerAuth?: string[] }[] | undefined;
      if (!security || security.length === 0) continue;
      const anyOf = security.flatMap((requirement) => requirement.bearerAuth ?? []);
      for (const scope of anyOf) known.add(scope);
      const segments = route.path.split("/");
      const ids = segments.flatMap((segment, index): PathId[] => {
        const param = segment.slice(1);
        if (!segment.startsWith(":") || param === "external_id" || !ID_PARAM.test(param)) return [];
        const collection = segments[index - 1]!;
        const owner = owners[collection];
        if (!owner) throw new Error(`${route.path}: no owner of the records of ${collection}`);
        return [{ param, owner }];
      });
      const methods = this.#routes.get(route.path) ?? new Map<string, RouteNeed>();
      this.#routes.set(route.path, methods);
      methods.set(route.method, { anyOf, ids, ownToken: route.hooks.detail?.[OWN_TOKEN] === true });
    }
    this.known = [...known].sort();
  }

  /** What the route needs; a route with no requirement is a bug, never a free pass. */
  need(method: string, path: string): RouteNeed {
    const need = this.#routes.get(path)?.get(method === "HEAD" ? "GET" : method);
    if (!need) throw new Error(`${method} ${path} declares no scope`);
    return need;
  }

  /**
   * The refusal of a caller whose token lacks what `need` asks: 404 for a path id that is not a
   * record of its company, else 403; returns when the operation is one a token may do to itself.
   */
  async refuse(need: RouteNeed, caller: Caller, params: Record<string, string>): Promise<void> {
    for (const { param, owner } of need.ids) {
      const value = params[param] ?? "";
      const id = /^[1-9][0-9]{0,15}$/.test(value) ? Number(value) : undefined;
      if (id === undefined || !(await owner.exists(caller.company.id, id)))
        throw notFound(owner.what, value);
      if (need.ownToken && id === caller.token.id) return;
    }
    throw insufficientScope(need.anyOf);
  }
}
