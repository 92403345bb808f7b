// What a token may see of the company's records (docs/tokens.md: no way around a scope), decided
// in this one place from its scopes and the scopes the resources' routes declare
// (resources/scopes.ts): every way records leave asks it. GET and lists are guarded by their
// routes' own scopes; `expand` embeds a record only for a token that may read its resource
// (resources/expand.ts); the change feed and record histories show only events of resources the
// token may read (routes/event-routes.ts), and a webhook endpoint delivers only those of the token
// that last made or changed it (webhooks/endpoints.ts). What a token sees of a readable record is
// decided here too (`of`): every field but the sensitive ones (pay, tax data, marked `sensitive`
// in the definitions, and a company's sensitive custom fields) without the resource's sensitive
// scope; each of those ways shows records through what `of` answers (shown.ts).
import { satisfies } from "../auth/scopes.ts";
import type { Executor } from "../db/client.ts";
import { scopeList } from "../auth/tokens.ts";
import { insufficientScope } from "../refusals/catalogue.ts";
import type { ResourceDefinition } from "./definition.ts";
import { sensitiveFieldNames } from "./fields.ts";
import { definitionNamed, RESOURCES } from "./registry.ts";
import { ANY_READ_SCOPES, CUSTOM_FIELDS_WRITE, operationScope, sensitiveScope } from "./scopes.ts";
import { sensitiveCustomKeys } from "./custom-fields.ts";
import { Shown } from "./shown.ts";

/** The scopes that let a token read a definition's records, any one of them. */
export const readScopes = (def: ResourceDefinition): readonly string[] =>
  operationScope(def, "get");

/** What a token holding some scopes may see. */
export class ReadView {
  readonly #reads = new Map<ResourceDefinition, boolean>();
  readonly #shown = new Map<
    ResourceDefinition,
    { companyId: number; custom: string; shown: Shown }
  >();
  #seesEvery: boolean | undefined;
  #configuration: boolean | undefined;

  constructor(
    readonly scopes: ReadonlySet<string>,
    /**
     * False for a view that never shows sensitive fields, whatever its scopes: a webhook endpoint
     * not set to `include_sensitive`.
     */
    readonly sensitive = true,
  ) {}

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

  /** True when the token sees the sensitive fields of `def` (its resource's sensitive scope). */
  seesSensitive(def: ResourceDefinition): boolean {
    return this.sensitive && satisfies(this.scopes, [sensitiveScope(def)]);
  }

  /**
   * What the token sees of the company's records of `def`: the one decision of which fields are
   * hidden. A token without the resource's sensitive scope sees none of its sensitive fields: those
   * the definition marks, and the company's custom fields of `def` defined `sensitive`
   * (custom-fields.ts, sensitiveCustomKeys), hidden as `custom_fields.<key>`.
   */
  async of(def: ResourceDefinition, companyId: number, db: Executor): Promise<Shown> {
    const keys = await sensitiveCustomKeys(db, companyId, def.name);
    const custom = keys.join(" ");
    const kept = this.#shown.get(def);
    if (kept && kept.companyId === companyId && kept.custom === custom) return kept.shown;
    const hidden = this.seesSensitive(def)
      ? []
      : [...sensitiveFieldNames(def), ...keys.map((key) => `custom_fields.${key}`)];
    const shown = new Shown(def, hidden, sensitiveScope(def), this.untimed);
    this.#shown.set(def, { companyId, custom, shown });
    return shown;
  }

  /** True when the token sees the sensitive fields of every resource (it holds `sensitive`, or `*`). */
  get seesEverySensitive(): boolean {
    this.#seesEvery ??= RESOURCES.every((def) => this.seesSensitive(def));
    return this.#seesEvery;
  }

  /**
   * True when the token does not see the sensitive fields of some resource: the ETags of its reads
   * leave out `updated_at` (http/etag.ts), embedded records' included.
   */
  get untimed(): boolean {
    return !this.seesEverySensitive;
  }

  /** True when the token may read the company's configuration (custom fields): any read scope does. */
  readsConfiguration(): boolean {
    this.#configuration ??= satisfies(this.scopes, [...ANY_READ_SCOPES, CUSTOM_FIELDS_WRITE]);
    return this.#configuration;
  }

  /**
   * True when the token may read the events of `resource` (an event's `resource`): a resource's
   * when it reads the resource; custom field definitions' with any read scope; attachments' (whose
   * records may be of any resource that takes them) when it reads every resource.
   */
  readsEventsOf(resource: string): boolean {
    if (resource === "custom-fields") return this.readsConfiguration();
    if (resource === "attachments") return RESOURCES.every((def) => this.reads(def));
    return this.reads(definitionNamed(resource));
  }

  /** 403 naming the read scope it lacks, unless the token may read the events of `resource`. */
  mustReadEvents(resource: string): void {
    if (resource === "custom-fields") {
      if (!this.readsConfiguration()) throw insufficientScope(ANY_READ_SCOPES);
      return;
    }
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

/**
 * What a token held when it made something that reads on its behalf (a webhook endpoint), as
 * stored; `sensitive`: whether it shows sensitive fields the scopes allow (`include_sensitive`).
 */
export const storedReadView = (scopes: string, sensitive: boolean): ReadView =>
  new ReadView(new Set(scopeList(scopes)), sensitive);

/** How `storedReadView` reads them back. */
export const storedScopes = (view: ReadView): string => [...view.scopes].join(" ");
