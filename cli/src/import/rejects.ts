// The --rejects file: every rejected row as the file had it (its own columns, order and values: a
// trade named by name stays a name) plus an `error` column, ready to fix and import again as it is.
// CSV rows are written as they are rejected; NDJSON rows (no header to follow) at the end.
import { appendFileSync, openSync, writeFileSync } from "node:fs";
import { csvLine } from "../output.ts";
import { UsageError } from "../usage-error.ts";
import { normalizeHeader } from "./columns.ts";
import { type Cell, textOf } from "./values.ts";

/** Whether `--rejects F` asks for a workbook (xlsx-rejects.ts): F's extension decides. */
export const wantsWorkbook = (file: string | undefined): boolean =>
  file?.toLowerCase().endsWith(".xlsx") === true;

export class RejectsFile {
  readonly #objects: { values: Record<string, unknown>; error: string }[] = [];
  /** The header's columns to write, without the input's own error column. */
  readonly #kept: number[] | undefined;

  /** Opens (and empties) the file at once, so a bad path fails before any row is sent. */
  constructor(
    readonly file: string | undefined,
    header: readonly string[] | undefined,
    /** Start with a byte-order mark, as the source did: spreadsheet programs need it to read accents right. */
    readonly bom = false,
  ) {
    this.#kept = header?.flatMap((cell, index) =>
      normalizeHeader(cell) === "error" ? [] : [index],
    );
    if (file === undefined) return;
    try {
      openSync(file, "w");
    } catch (error) {
      throw new UsageError(
        `cannot write the rejected rows to ${file}: ${(error as Error).message}`,
      );
    }
    if (header && this.#kept)
      writeFileSync(
        file,
        this.#start(csvLine([...this.#kept.map((index) => header[index]), "error"])),
      );
  }

  /** A row's cells as read (a workbook's typed cells as text). */
  addCells(cells: readonly Cell[], error: string): void {
    if (this.file && this.#kept)
      appendFileSync(
        this.file,
        csvLine([
          ...this.#kept.map((index) => {
            const cell = cells[index] ?? "";
            return typeof cell === "string" ? cell : textOf(cell);
          }),
          error,
        ]),
      );
  }

  /** An NDJSON row's object. */
  addObject(values: Record<string, unknown>, error: string): void {
    if (this.file) this.#objects.push({ values, error });
  }

  #start(text: string): string {
    return this.bom ? `\uFEFF${text}` : text;
  }

  /** Writes the NDJSON rows: the columns are every member any of them had, in order of appearance. */
  close(): void {
    if (!this.file || this.#kept || this.#objects.length === 0) return;
    const columns = [...new Set(this.#objects.flatMap((row) => Object.keys(row.values)))].filter(
      (column) => normalizeHeader(column) !== "error",
    );
    const lines = [
      csvLine([...columns, "error"]),
      ...this.#objects.map((row) =>
        csvLine([...columns.map((column) => row.values[column] ?? ""), row.error]),
      ),
    ];
    writeFileSync(this.file, this.#start(lines.join("")));
  }
}
