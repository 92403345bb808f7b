// Rows equal in every cell to an earlier row of the file: a spreadsheet's copied rows. They are
// counted and reported (each is still a record of its own unless --skip-repeated), so 109 pasted
// rows do not pass unnoticed. Only a digest of each row is kept, never the row, and in a table of
// typed arrays (the SDK's DigestTable), so a file of any length costs a few dozen bytes a row.
import { DigestTable } from "@erp/sdk";
import type { Row } from "./rows.ts";

export interface RowPlace {
  row: number;
  line: number;
}

export class RepeatedRows {
  /** A row's digest → the first row with it: its row and line. */
  readonly #first = new DigestTable(2);
  readonly #digest = new Uint8Array(32);

  /** The earlier row this one repeats in every cell, if any (the row is remembered otherwise). */
  earlier(row: Row): RowPlace | undefined {
    let text = "";
    if (row.cells)
      for (const cell of row.cells) {
        const part = typeof cell === "string" ? `s${cell}` : `j${JSON.stringify(cell)}`;
        text += `${part.length}:${part}`;
      }
    else text = JSON.stringify(row.object);
    // One hash of the whole text: four times faster than feeding it cell by cell.
    Bun.SHA256.hash(text, this.#digest);
    const found = this.#first.find(this.#digest);
    if (found >= 0) return { row: this.#first.value(found, 0), line: this.#first.value(found, 1) };
    const slot = this.#first.add(this.#digest);
    this.#first.set(slot, 0, row.row);
    this.#first.set(slot, 1, row.line);
    return undefined;
  }
}
