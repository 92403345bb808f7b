// What one token sees of one resource's records (docs/tokens.md, sensitive fields): every field but
// the hidden paths, which are the sensitive fields of a token without the resource's sensitive
// scope (visibility.ts decides which). A path is a field's name (`hourly_rate`) or a member of an
// object field (`custom_fields.salary_band`). Every way records leave shows them through this: a
// read, a list, an embedded record, a write's answer (its `record` and `changes`), an event of the
// feed, a history or a webhook delivery; and a query or a write that names a hidden path is refused
// here, naming the scope.
import { etagOf, untimedEtagOf } from "../http/etag.ts";
import { insufficientScope } from "../refusals/catalogue.ts";
import type { ResourceDefinition } from "./definition.ts";

type Members = Record<string, unknown>;

/** `value` without its member `name`: the same value when it has none. */
function memberless(value: unknown, name: string): unknown {
  if (value === null || typeof value !== "object" || !(name in value)) return value;
  const { [name]: _, ...kept } = value as Members;
  return kept;
}

/** `record` without the paths: the same object when it has none of them, else a copy. */
function without(record: Members, top: readonly string[], nested: readonly [string, string][]) {
  let copy: Members | undefined;
  for (const name of top)
    if (name in record) {
      copy ??= { ...record };
      delete copy[name];
    }
  for (const [outer, inner] of nested) {
    const kept = memberless(record[outer], inner);
    if (kept === record[outer]) continue;
    copy ??= { ...record };
    copy[outer] = kept;
  }
  return copy ?? record;
}

const isEmpty = (value: unknown): boolean =>
  value === null ||
  value === undefined ||
  (typeof value === "object" && Object.keys(value as object).length === 0);

export class Shown {
  /** True when the token does not see every field of the records. */
  readonly hides: boolean;
  readonly #top: readonly string[];
  readonly #nested: readonly [string, string][];

  constructor(
    readonly def: ResourceDefinition,
    /** The paths the token may not see, read or write. */
    readonly hidden: readonly string[],
    /** The scope that would show them. */
    readonly scope: string,
    /**
     * True when the token does not see every field of some resource: its answers' ETags leave
     * out `updated_at` (http/etag.ts), which a change to a field it does not see moves too.
     */
    readonly untimed: boolean,
  ) {
    this.hides = hidden.length > 0;
    this.#top = hidden.filter((path) => !path.includes("."));
    this.#nested = hidden
      .filter((path) => path.includes("."))
      .map((path) => path.split(".", 2) as [string, string]);
  }

  /** The record as the token sees it: the same object when nothing is hidden, else a copy. */
  record<R extends Members>(record: R): R {
    return this.hides ? (without(record, this.#top, this.#nested) as R) : record;
  }

  /** Records read for this answer alone, hidden paths taken out in place. */
  strip(records: readonly Members[]): void {
    if (!this.hides) return;
    for (const record of records) {
      for (const name of this.#top) delete record[name];
      for (const [outer, inner] of this.#nested)
        if (outer in record) record[outer] = memberless(record[outer], inner);
    }
  }

  /**
   * An update's changes as the token sees them: those of hidden fields left out. An object field's
   * change (`custom_fields: {from: {…}, to: {…}}`, the members that changed) loses the hidden
   * members on both sides, and is left out when nothing else of it changed.
   */
  changes<C extends Members>(changes: C): C {
    if (!this.hides) return changes;
    const shown: Members = without(changes, this.#top, []);
    let copy = shown === changes ? undefined : shown;
    for (const [outer, inner] of this.#nested) {
      const change = shown[outer] as { from?: unknown; to?: unknown } | null | undefined;
      if (change === null || typeof change !== "object") continue;
      const from = memberless(change.from, inner);
      const to = memberless(change.to, inner);
      if (from === change.from && to === change.to) continue;
      copy ??= { ...changes };
      if (isEmpty(from) && isEmpty(to)) delete copy[outer];
      else copy[outer] = { from, to };
    }
    return (copy ?? changes) as C;
  }

  /** An event's or a write answer's `{record, changes?}` as the token sees it. */
  data<D extends { record?: Members; changes?: Members }>(data: D): D {
    if (!this.hides) return data;
    return {
      ...data,
      ...(data.record ? { record: this.record(data.record) } : {}),
      ...(data.changes ? { changes: this.changes(data.changes) } : {}),
    };
  }

  /** The ETag a GET of the record sends the token: what If-Match compares to. */
  etag(record: Members): string {
    const document = { data: this.record(record) };
    return this.untimed ? untimedEtagOf(document) : etagOf(JSON.stringify(document));
  }

  /** Of these field names, those the token sees (`fields=`, a search's columns). */
  visible(names: readonly string[]): string[] {
    return this.hides ? names.filter((name) => !this.#top.includes(name)) : [...names];
  }

  /**
   * 403 insufficient_scope naming the sensitive scope when one of `paths` (a filter's, a range's,
   * a sort's, a field a write sets) is hidden from the token.
   */
  refuseNamed(paths: Iterable<string>): void {
    if (!this.hides) return;
    for (const path of paths) if (this.hidden.includes(path)) throw insufficientScope([this.scope]);
  }

  /** 403 when a write's body (one record's members) sets a hidden path. */
  refuseWritten(body: unknown): void {
    if (!this.hides || body === null || typeof body !== "object" || Array.isArray(body)) return;
    const members = body as Members;
    this.refuseNamed(Object.keys(members));
    for (const [outer, inner] of this.#nested) {
      const object = members[outer];
      if (object !== null && typeof object === "object" && inner in object)
        throw insufficientScope([this.scope]);
    }
  }
}
