// What a reader of an import file hands on: the file's format and header, and its rows, whatever
// the format (rows.ts reads CSV and NDJSON, xlsx-source.ts workbooks).
import type { Delimiter } from "./csv-parser.ts";
import type { Cell } from "./values.ts";
import type { TypedCell } from "./xlsx-cells.ts";

export const IMPORT_FORMATS = ["csv", "ndjson", "xlsx"] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** One data row, as the file has it, or why it cannot be read. */
export interface Row {
  /** 1-based data row: the CSV header and blank lines are not counted. */
  row: number;
  /** 1-based line where the row starts in the file. */
  line: number;
  /** Characters the row took in the file, for progress. */
  size: number;
  /** A CSV row's cells, as written (a workbook's may be typed). */
  cells?: Cell[];
  /** A workbook row's cells as the workbook types them, when a rejects workbook is to keep them. */
  typed?: TypedCell[];
  /** An NDJSON row's object. */
  object?: Record<string, unknown>;
  /** Why the row cannot be read (a quote never closed, a wrong number of cells, not JSON). */
  error?: string;
}

export interface ImportSource {
  format: ImportFormat;
  /** A CSV file's header cells (NDJSON has none). */
  header: string[] | undefined;
  /** Bytes to read, when known (a file, not stdin). */
  totalSize: number | undefined;
  /** Characters taken by what is not a row (the CSV header), for progress. */
  overhead: number;
  /** Whether the file started with a byte-order mark (a rejects CSV then starts with one too). */
  bom: boolean;
  /** A CSV's delimiter (a rejects CSV uses it too). */
  delimiter?: Delimiter;
  /** Empty lines skipped so far, above the header too (rows of empty cells are rows, counted as blank when read). */
  blankLines: () => number;
  rows: AsyncIterable<Row>;
}
