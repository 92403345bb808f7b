// The live values of a resource's unique fields (code, serial_number, external_id) as a set of
// writes leaves them, item by item: read from the database, then taken and freed in memory. Two
// values are the same value exactly when the unique index holds them equal: byte for byte, but
// for trailing spaces, which its collation pads (db/schema.ts). So a check, a dry-run and the
// index always agree.

/** Who holds a unique value: a stored record, an earlier item of the same batch, or (in a dry-run) an earlier batch. */
export type Holder = { id: number } | { item: number } | { preceding: true };

/** A value as the unique index compares it: trailing spaces do not count. */
export function uniqueKeyOf(value: string): string {
  let end = value.length;
  while (end > 0 && value.charCodeAt(end - 1) === 0x20) end--;
  return end === value.length ? value : value.slice(0, end);
}

/** The live values of a resource's unique fields as the writes so far leave them. */
export class UniqueValues {
  readonly #held = new Map<string, Map<string, Holder>>();

  holder(field: string, value: unknown): Holder | undefined {
    return typeof value === "string" ? this.#held.get(field)?.get(uniqueKeyOf(value)) : undefined;
  }

  take(field: string, value: unknown, holder: Holder): void {
    if (typeof value !== "string") return;
    let values = this.#held.get(field);
    if (!values) {
      values = new Map();
      this.#held.set(field, values);
    }
    values.set(uniqueKeyOf(value), holder);
  }

  free(field: string, value: unknown): void {
    if (typeof value === "string") this.#held.get(field)?.delete(uniqueKeyOf(value));
  }
}
