// Rows that repeat an earlier row of the file: a spreadsheet's copied rows (every cell equal), and
// unique values given twice (an external_id on two rows). They are told by the first row that gave
// them, its row and line, so a report can name it. Only a digest of each text is kept, never the
// row, in a table of typed arrays (the SDK's DigestTable): a few dozen bytes a row.
import { DigestTable } from "@erp/sdk";
import type { Row } from "./source.ts";

export interface RowPlace {
  row: number;
  line: number;
}

/** The first row each text was seen on. */
class FirstRows {
  readonly #first = new DigestTable(2);
  readonly #digest = new Uint8Array(32);

  /** The first row that gave `text`; `place` itself when it is the first (it is remembered). */
  first(text: string, place: RowPlace): RowPlace {
    // One hash of the whole text: four times faster than feeding it part by part.
    Bun.SHA256.hash(text, this.#digest);
    const found = this.#first.find(this.#digest);
    if (found >= 0) return { row: this.#first.value(found, 0), line: this.#first.value(found, 1) };
    const slot = this.#first.add(this.#digest);
    this.#first.set(slot, 0, place.row);
    this.#first.set(slot, 1, place.line);
    return place;
  }
}

const earlierThan = (first: RowPlace, row: RowPlace): RowPlace | undefined =>
  first.row === row.row ? undefined : first;

/**
 * Rows equal in every cell to an earlier row: counted and reported, each still a record of its own
 * unless --skip-repeated.
 */
export class RepeatedRows {
  readonly #rows = new FirstRows();

  /** The earlier row this one repeats in every cell, if any (the row is remembered otherwise). */
  earlier(row: Row): RowPlace | undefined {
    let text = "";
    if (row.cells)
      for (const cell of row.cells) {
        const part = typeof cell === "string" ? `s${cell}` : `j${JSON.stringify(cell)}`;
        text += `${part.length}:${part}`;
      }
    else text = JSON.stringify(row.object);
    return earlierThan(this.#rows.first(text, row), row);
  }
}

/** The first row that gave each value of the unique fields, to name it when a later row repeats the value. */
export class UniqueValues {
  readonly #values = new FirstRows();

  constructor(private readonly fields: readonly string[]) {}

  /** Notes the row's values (a value the server compares without its trailing spaces). */
  note(row: RowPlace, values: Readonly<Record<string, unknown>>): void {
    for (const field of this.fields) {
      const value = values[field];
      if (typeof value === "string") this.#values.first(this.#key(field, value), row);
    }
  }

  /** The earlier row that gave the field this row's value, if any. */
  earlier(
    field: string,
    row: RowPlace,
    values: Readonly<Record<string, unknown>>,
  ): RowPlace | undefined {
    const value = values[field];
    if (typeof value !== "string") return undefined;
    return earlierThan(this.#values.first(this.#key(field, value), row), row);
  }

  #key(field: string, value: string): string {
    return `${field}\u0000${value.replace(/ +$/, "")}`;
  }
}
