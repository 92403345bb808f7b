// The live values of a resource's unique fields (code, serial_number, external_id) as a set of
// writes leaves them, item by item: read from the database, then taken and freed in memory.

/** Who holds a unique value: a stored record, an earlier item of the same batch, or (in a dry-run) an earlier batch. */
export type Holder = { id: number } | { item: number } | { preceding: true };

/** The live values of a resource's unique fields as the writes so far leave them. */
export class UniqueValues {
  readonly #held = new Map<string, Map<string, Holder>>();

  holder(field: string, value: unknown): Holder | undefined {
    return typeof value === "string" ? this.#held.get(field)?.get(value) : undefined;
  }

  take(field: string, value: unknown, holder: Holder): void {
    if (typeof value !== "string") return;
    let values = this.#held.get(field);
    if (!values) {
      values = new Map();
      this.#held.set(field, values);
    }
    values.set(value, holder);
  }

  free(field: string, value: unknown): void {
    if (typeof value === "string") this.#held.get(field)?.delete(value);
  }
}
