// The live values of a resource's unique fields (code, serial_number, external_id) as a set of
// writes leaves them, item by item: read from the database, then taken and freed in memory. Two
// values are the same value exactly when the unique index holds them equal: byte for byte, but
// for trailing spaces, which its collation pads (db/schema.ts); a caseless field's (a lookup's
// name) ignoring case and surrounding white space, as its key column does (resources/caseless.ts).
// So a check, a dry-run and the index always agree.
import { caselessKey, isCaseless } from "../resources/caseless.ts";
import type { ResourceDefinition } from "../resources/definition.ts";

/** Who holds a unique value: a stored record, an earlier item of the same batch, or (in a dry-run) an earlier batch. */
export type Holder = { id: number } | { item: number } | { preceding: true };

/** A value as the unique index compares it: trailing spaces do not count. */
export function uniqueKeyOf(value: string): string {
  let end = value.length;
  while (end > 0 && value.charCodeAt(end - 1) === 0x20) end--;
  return end === value.length ? value : value.slice(0, end);
}

/** How the unique index of one of `def`'s fields compares its values. */
export function uniqueKeyFor(def: ResourceDefinition, field: string): (value: string) => string {
  return isCaseless(def.fields[field]) ? caselessKey : uniqueKeyOf;
}

/** The live values of a resource's unique fields as the writes so far leave them. */
export class UniqueValues {
  readonly #held = new Map<string, Map<string, Holder>>();

  constructor(private readonly def: ResourceDefinition) {}

  #key(field: string, value: string): string {
    return uniqueKeyFor(this.def, field)(value);
  }

  holder(field: string, value: unknown): Holder | undefined {
    return typeof value === "string"
      ? this.#held.get(field)?.get(this.#key(field, value))
      : undefined;
  }

  take(field: string, value: unknown, holder: Holder): void {
    if (typeof value !== "string") return;
    let values = this.#held.get(field);
    if (!values) {
      values = new Map();
      this.#held.set(field, values);
    }
    values.set(this.#key(field, value), holder);
  }

  free(field: string, value: unknown): void {
    if (typeof value === "string") this.#held.get(field)?.delete(this.#key(field, value));
  }
}
