// The --rejects file: every rejected row as the file had it (its own columns, order and values: a
// trade named by name stays a name) plus an `error` column, written so that the same command reads
// it back: the source's delimiter, a workbook's typed numbers with the decimal mark --decimal-comma
// reads, a BOM when the source had one. CSV rows are written as they are rejected; NDJSON rows (no
// header to follow) at the end. A workbook of rejects is xlsx-rejects.ts.
import { appendFileSync, openSync, writeFileSync } from "node:fs";
import { csvLine } from "../output.ts";
import { UsageError } from "../usage-error.ts";
import { normalizeHeader } from "./columns.ts";
import type { Row } from "./source.ts";
import { type Cell, textOf } from "./values.ts";

/** Where rejected rows go: a CSV file, a workbook, or nowhere. */
export interface RejectsSink {
  add(row: Row, error: string): void;
  close(): void | Promise<void>;
}

/** Whether `--rejects F` asks for a workbook (xlsx-rejects.ts): F's extension decides. */
export const wantsWorkbook = (file: string | undefined): boolean =>
  file?.toLowerCase().endsWith(".xlsx") === true;

/** Empties the file at once, so a bad path fails before any row is sent. */
export function openRejects(file: string): void {
  try {
    openSync(file, "w");
  } catch (error) {
    throw new UsageError(`cannot write the rejected rows to ${file}: ${(error as Error).message}`);
  }
}

/** The header's columns a rejects file repeats: all but an `error` column of the input's own. */
export const keptColumns = (header: readonly string[] | undefined): number[] | undefined =>
  header?.flatMap((cell, index) => (normalizeHeader(cell) === "error" ? [] : [index]));

/** NDJSON rows' columns: every member any of them had, in order of appearance, but `error`. */
export const objectColumns = (objects: readonly { values: Record<string, unknown> }[]): string[] =>
  [...new Set(objects.flatMap((row) => Object.keys(row.values)))].filter(
    (column) => normalizeHeader(column) !== "error",
  );

/** How a CSV of rejects is written, so the flags that read the source read it too. */
export interface CsvLayout {
  delimiter: string;
  /** Start with a byte-order mark, as the source did: spreadsheet programs need it to read accents right. */
  bom: boolean;
  /** Numbers a workbook typed are written with a decimal comma (`37,05`), as --decimal-comma reads them. */
  decimalComma: boolean;
}

export class CsvRejects implements RejectsSink {
  readonly #objects: { values: Record<string, unknown>; error: string }[] = [];
  readonly #kept: number[] | undefined;

  constructor(
    readonly file: string,
    header: readonly string[] | undefined,
    private readonly layout: CsvLayout,
  ) {
    this.#kept = keptColumns(header);
    openRejects(file);
    if (header && this.#kept)
      writeFileSync(
        file,
        this.#start(this.#line([...this.#kept.map((index) => header[index]), "error"])),
      );
  }

  add(row: Row, error: string): void {
    if (!row.cells) this.#objects.push({ values: row.object ?? {}, error });
    else if (this.#kept) {
      const cells = row.cells;
      const values = this.#kept.map((index) => this.#text(cells[index] ?? ""));
      appendFileSync(this.file, this.#line([...values, error]));
    }
  }

  /** Writes the NDJSON rows: the columns are every member any of them had, in order of appearance. */
  close(): void {
    if (this.#kept || this.#objects.length === 0) return;
    const columns = objectColumns(this.#objects);
    const lines = [
      this.#line([...columns, "error"]),
      ...this.#objects.map((row) =>
        this.#line([...columns.map((column) => row.values[column] ?? ""), row.error]),
      ),
    ];
    writeFileSync(this.file, this.#start(lines.join("")));
  }

  /** A cell as text: a CSV's as written, a workbook's number with the decimal mark the flags read. */
  #text(cell: Cell): string {
    if (typeof cell === "string") return cell;
    const text = textOf(cell);
    const numeric =
      typeof cell === "number" || (typeof cell === "object" && !(cell instanceof Date));
    return numeric && this.layout.decimalComma ? text.replace(".", ",") : text;
  }

  #line(values: readonly unknown[]): string {
    return csvLine(values, this.layout.delimiter);
  }

  #start(text: string): string {
    return this.layout.bom ? `\uFEFF${text}` : text;
  }
}

/** No --rejects: the rejected rows are only counted and reported. */
export const NO_REJECTS: RejectsSink = { add: () => {}, close: () => {} };
