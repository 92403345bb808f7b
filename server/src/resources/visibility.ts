// What a token may see of the company's records (docs/tokens.md: no way around a scope), decided
// in this one place from its scopes and the scopes the resources' routes declare
// (resources/scopes.ts): every way records leave asks it. GET and lists are guarded by their
// routes' own scopes; `expand` embeds a record only for a token that may read its resource
// (resources/expand.ts); the change feed and record histories show only events of resources the
// token may read (routes/event-routes.ts), and a webhook endpoint delivers only those of the token
// that last made or changed it (webhooks/endpoints.ts). What a token may see of a readable record
// (`fields`: what an embedded record shows) is this module's to decide as well, so that a rule on
// fields applies wherever records leave.
import { satisfies } from "../auth/scopes.ts";
import { scopeList } from "../auth/tokens.ts";
import { insufficientScope } from "../refusals/catalogue.ts";
import type { ResourceDefinition } from "./definition.ts";
import { readableFieldNames } from "./fields.ts";
import { definitionNamed, RESOURCES } from "./registry.ts";
import { operationScope } from "./scopes.ts";

/** The scopes that let a token read a definition's records, any one of them. */
export const readScopes = (def: ResourceDefinition): readonly string[] =>
  operationScope(def, "get");

/** What a token holding some scopes may see. */
export class ReadView {
  readonly #reads = new Map<ResourceDefinition, boolean>();

  constructor(readonly scopes: ReadonlySet<string>) {}

  /** True when the token may read the definition's records. */
  reads(def: ResourceDefinition): boolean {
    let reads = this.#reads.get(def);
    if (reads === undefined) {
      reads = satisfies(this.scopes, readScopes(def));
      this.#reads.set(def, reads);
    }
    return reads;
  }

  /** 403 insufficient_scope naming the read scope of `def`, unless the token may read it. */
  mustRead(def: ResourceDefinition): void {
    if (!this.reads(def)) throw insufficientScope(readScopes(def));
  }

  /** The fields of a readable definition's records the token sees: every one a record shows. */
  fields(def: ResourceDefinition): readonly string[] {
    return readableFieldNames(def);
  }

  /**
   * True when the token may read the events of `resource` (an event's `resource`): a resource's
   * when it reads the resource; attachments' (whose records may be of any resource that takes
   * them) when it reads every resource.
   */
  readsEvents(resource: string): boolean {
    if (resource === "attachments") return RESOURCES.every((def) => this.reads(def));
    return this.reads(definitionNamed(resource));
  }

  /** 403 naming the read scope it lacks, unless the token may read the events of `resource`. */
  mustReadEvents(resource: string): void {
    const defs = resource === "attachments" ? RESOURCES : [definitionNamed(resource)];
    for (const def of defs) this.mustRead(def);
  }

  /** The definitions among `defs` whose records the token may read. */
  readable(defs: readonly ResourceDefinition[]): ResourceDefinition[] {
    return defs.filter((def) => this.reads(def));
  }
}

/** One view per set of scopes: a token's set lives as long as its company cache keeps it. */
const views = new WeakMap<ReadonlySet<string>, ReadView>();

/** What a token holding `scopes` may see. */
export function readView(scopes: ReadonlySet<string>): ReadView {
  let view = views.get(scopes);
  if (!view) {
    view = new ReadView(scopes);
    views.set(scopes, view);
  }
  return view;
}

/** What a token held when it made something that reads on its behalf (a webhook endpoint), as stored. */
export const storedReadView = (scopes: string): ReadView =>
  new ReadView(new Set(scopeList(scopes)));

/** How `storedReadView` reads them back. */
export const storedScopes = (view: ReadView): string => [...view.scopes].join(" ");
