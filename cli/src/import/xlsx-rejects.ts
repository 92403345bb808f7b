// `--rejects F.xlsx`: the rejected rows as a workbook, for offices that fix them in Excel. Like the
// CSV rejects file, one sheet with the source's own columns, order and cells plus an `error` column;
// a row read from a workbook keeps its cells as typed there (a date stays a date cell, a number a
// number with its format, a code with leading zeros text), so the file re-imports as it is.
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { WorkbookWriter, type WorksheetWriter } from "@cj-tech-master/excelts";
import { keptColumns, objectColumns, openRejects, type RejectsSink } from "./rejects.ts";
import type { Row } from "./source.ts";
import { textOf } from "./values.ts";

type Value = string | number | boolean | Date | null;

export class XlsxRejects implements RejectsSink {
  readonly #header: readonly string[] | undefined;
  readonly #kept: number[] | undefined;
  readonly #objects: { values: Record<string, unknown>; error: string }[] = [];
  readonly #output: ReturnType<typeof createWriteStream>;
  readonly #workbook: WorkbookWriter;
  readonly #sheet: WorksheetWriter;

  constructor(file: string, header: readonly string[] | undefined) {
    openRejects(file);
    this.#header = header;
    this.#kept = keptColumns(header);
    this.#output = createWriteStream(file);
    this.#workbook = new WorkbookWriter({
      stream: this.#output,
      useStyles: true,
      useSharedStrings: false,
    });
    this.#sheet = this.#workbook.addWorksheet("Rejected rows");
    if (header && this.#kept)
      this.#sheet.addRow([...this.#kept.map((index) => header[index]!), "error"]).commit();
  }

  add(row: Row, error: string): void {
    if (!row.cells) {
      this.#objects.push({ values: row.object ?? {}, error });
      return;
    }
    if (!this.#kept) return;
    const { cells, typed } = row;
    const values: Value[] = this.#kept.map((index) => {
      const value = typed ? typed[index]?.value : cells[index];
      // An empty cell stays empty (not a cell holding ""); a 0 or false is a value.
      if (value === undefined || value === null || value === "") return null;
      return typeof value === "object" && !(value instanceof Date) ? textOf(value) : value;
    });
    const added = this.#sheet.addRow([...values, error]);
    this.#kept.forEach((index, column) => {
      const numFmt = typed?.[index]?.numFmt;
      if (values[column] instanceof Date) added.getCell(column + 1).numFmt = numFmt ?? "yyyy-mm-dd";
      else if (numFmt !== undefined) added.getCell(column + 1).numFmt = numFmt;
    });
    added.commit();
  }

  /** Writes what is left (NDJSON rows: their columns are known only now) and finishes the file. */
  async close(): Promise<void> {
    if (!this.#header && this.#objects.length > 0) {
      const columns = objectColumns(this.#objects);
      this.#sheet.addRow([...columns, "error"]).commit();
      for (const row of this.#objects)
        this.#sheet
          .addRow([...columns.map((column) => cellOf(row.values[column])), row.error])
          .commit();
    }
    this.#sheet.commit();
    const finished = once(this.#output, "close");
    await this.#workbook.commit();
    await finished;
  }
}

/** An NDJSON member as a cell: numbers, booleans and text as they are, anything else as JSON. */
function cellOf(value: unknown): Value {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
    return value;
  return JSON.stringify(value);
}
