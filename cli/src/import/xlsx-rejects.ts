// `--rejects F.xlsx`: the rejected rows as a workbook, for offices that fix them in Excel. Like the
// CSV rejects file, one sheet with the source's own columns, order and cells plus an `error` column;
// a row read from a workbook keeps its cells as typed there (a date stays a date cell, a number a
// number with its format, a code with leading zeros text), so the file re-imports as it is.
import { createWriteStream, openSync } from "node:fs";
import { once } from "node:events";
import { WorkbookWriter, type WorksheetWriter } from "@cj-tech-master/excelts";
import { UsageError } from "../usage-error.ts";
import { normalizeHeader } from "./columns.ts";
import { RejectsFile } from "./rejects.ts";
import { type Cell, textOf } from "./values.ts";
import { type TypedCell, typedCells } from "./xlsx-source.ts";

export class XlsxRejectsFile extends RejectsFile {
  readonly #header: readonly string[] | undefined;
  readonly #kept: number[] | undefined;
  readonly #objects: { values: Record<string, unknown>; error: string }[] = [];
  readonly #output: ReturnType<typeof createWriteStream>;
  readonly #workbook: WorkbookWriter;
  readonly #sheet: WorksheetWriter;

  constructor(file: string, header: readonly string[] | undefined) {
    // The base class writes no file of its own: it is given none.
    super(undefined, header);
    try {
      openSync(file, "w");
    } catch (error) {
      throw new UsageError(
        `cannot write the rejected rows to ${file}: ${(error as Error).message}`,
      );
    }
    this.#header = header;
    this.#kept = header?.flatMap((cell, index) =>
      normalizeHeader(cell) === "error" ? [] : [index],
    );
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

  override addCells(cells: readonly Cell[], error: string): void {
    if (!this.#kept) return;
    const typed = typedCells.get(cells);
    const values = this.#kept.map((index) => {
      const value = typed ? typed[index]?.value : cells[index];
      // An empty cell stays empty (not a cell holding ""); a 0 or false is a value.
      if (value === undefined || value === null || value === "") return null;
      return typeof value === "object" && !(value instanceof Date) ? textOf(value) : value;
    });
    const row = this.#sheet.addRow([...values, error]);
    this.#kept.forEach((index, column) => {
      const cell: TypedCell | undefined = typed?.[index];
      if (values[column] instanceof Date)
        row.getCell(column + 1).numFmt = cell?.numFmt ?? "yyyy-mm-dd";
      else if (cell?.numFmt !== undefined) row.getCell(column + 1).numFmt = cell.numFmt;
    });
    row.commit();
  }

  override addObject(values: Record<string, unknown>, error: string): void {
    this.#objects.push({ values, error });
  }

  /** Writes what is left (NDJSON rows: their columns are known only now) and finishes the file. */
  override async close(): Promise<void> {
    if (!this.#header && this.#objects.length > 0) {
      const columns = [...new Set(this.#objects.flatMap((row) => Object.keys(row.values)))].filter(
        (column) => normalizeHeader(column) !== "error",
      );
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
function cellOf(value: unknown): string | number | boolean | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
    return value;
  return JSON.stringify(value);
}
