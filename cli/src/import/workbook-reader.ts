// Reads an Excel workbook (.xlsx) as import rows, streamed and bounded: its zip read by its directory
// (zip-archive.ts), the parts that say how to read the sheet first (workbook-parts.ts), then the
// sheet's XML scanned as it unpacks (sheet-xml.ts), each cell typed and read for the import
// (xlsx-cells.ts). One sheet (the first visible, or --sheet NAME), its first non-empty row the
// header, every later row one import row carrying its typed cells. Empty rows are rows of empty
// cells, so the import counts them as blank, like CSV's. Excel's limits and the parts' unpacked
// sizes are checked as the file is read (workbook-limits.ts).
import { UsageError } from "../usage-error.ts";
import { columnName, type ScannedRow, SheetXmlScanner } from "./sheet-xml.ts";
import type { ImportSource, Row } from "./source.ts";
import type { Cell } from "./values.ts";
import { workbookRefusal } from "./workbook-limits.ts";
import { readIndex, readStyles, type SheetEntry, SharedStrings } from "./workbook-parts.ts";
import { CellProblem, CellReader, cellText, importCell, type TypedCell } from "./xlsx-cells.ts";
import { ZipArchive } from "./zip-archive.ts";

export interface WorkbookOptions {
  /** The file's name (or "stdin"), for messages. */
  name: string;
  /** The sheet to read (--sheet); else the first visible one. */
  sheet: string | undefined;
  /** Keep each row's typed cells (for a workbook of rejects); else only what the import reads is kept. */
  typed: boolean;
}

/** An open workbook file: its descriptor and size. */
export interface WorkbookFile {
  fd: number;
  size: number;
}

/** The workbook's rows, parsed on this thread (the worker's work). */
export async function readWorkbook(
  { fd, size }: WorkbookFile,
  options: WorkbookOptions,
): Promise<ImportSource> {
  const archive = await ZipArchive.open(fd, size).catch((error: unknown) => {
    throw workbookRefusal(error, options.name);
  });
  let sheet: SheetEntry;
  let cells: CellReader;
  try {
    const index = await readIndex(archive);
    sheet = chooseSheet(index.sheets, options);
    const formats = await readStyles(archive, index.styles);
    cells = new CellReader(
      await SharedStrings.read(archive, index.sharedStrings, index.sheets),
      formats,
      index.date1904,
    );
  } catch (error) {
    throw workbookRefusal(error, options.name);
  }
  const rows = sheetRows(archive, sheet);
  let taken = 0;
  const at = (): number => {
    const size = archive.consumed - taken;
    taken = archive.consumed;
    return size;
  };
  let header: string[] | undefined;
  try {
    for (;;) {
      const next = await rows.next();
      if (next.done) break;
      const typed = next.value.cells.map((cell) => cells.typed(cell));
      if (typed.every((cell) => isBlank(cell.value))) continue;
      header = headerOf(next.value, typed, sheet.name);
      break;
    }
  } catch (error) {
    throw workbookRefusal(
      error instanceof CellProblem ? new UsageError(`the header ${error.message}`) : error,
      options.name,
    );
  }
  if (!header)
    throw new UsageError(
      `${options.name}: the sheet "${sheet.name}" has no rows; its first non-empty row must be a ` +
        "header naming the fields",
    );
  const overhead = at();
  return {
    format: "xlsx",
    header,
    totalSize: size,
    overhead,
    bom: false,
    blankLines: () => 0,
    rows: dataRows(rows, cells, header.length, at, options),
  };
}

function chooseSheet(sheets: readonly SheetEntry[], { name, sheet }: WorkbookOptions): SheetEntry {
  if (sheet === undefined) {
    const first = sheets.find((entry) => !entry.hidden) ?? sheets[0];
    if (!first) throw new UsageError(`${name} is a workbook without sheets`);
    return first;
  }
  const found =
    sheets.find((entry) => entry.name === sheet) ??
    sheets.find((entry) => entry.name.toLowerCase() === sheet.toLowerCase());
  if (!found)
    throw new UsageError(
      `${name} has no sheet "${sheet}"; its sheets: ${sheets.map((entry) => `"${entry.name}"`).join(", ")}`,
    );
  return found;
}

/** The sheet's rows as its XML unpacks. */
async function* sheetRows(archive: ZipArchive, sheet: SheetEntry): AsyncGenerator<ScannedRow> {
  const entry = archive.entry(sheet.part);
  if (!entry) throw new UsageError(`the sheet "${sheet.name}" is missing from the workbook`);
  const scanner = new SheetXmlScanner();
  const decoder = new TextDecoder("utf-8");
  for await (const chunk of archive.bytes(entry))
    yield* scanner.push(decoder.decode(chunk, { stream: true }));
  yield* scanner.push(decoder.decode());
  yield* scanner.end();
}

function headerOf(row: ScannedRow, typed: readonly TypedCell[], sheet: string): string[] {
  const width = Math.max(
    0,
    ...row.cells.map((cell, index) => (isBlank(typed[index]!.value) ? 0 : cell.column)),
  );
  const header: string[] = Array(width).fill("");
  row.cells.forEach((cell, index) => {
    if (cell.column <= width) header[cell.column - 1] = cellText(typed[index]!);
  });
  const unnamed = header.findIndex((name) => name.trim() === "");
  if (unnamed >= 0)
    throw new UsageError(
      `the header (row ${row.number} of the sheet "${sheet}") has no name in column ${columnName(unnamed + 1)}`,
    );
  return header;
}

async function* dataRows(
  rows: AsyncGenerator<ScannedRow>,
  cells: CellReader,
  width: number,
  at: () => number,
  { name, typed }: WorkbookOptions,
): AsyncGenerator<Row> {
  let row = 0;
  let last: number | undefined;
  try {
    for await (const scanned of rows) {
      // A row with nothing in it is not in the file at all: the rows skipped over were empty (no
      // cells: as blank as a row of empty ones, and a million of them cost no more than a million rows).
      if (last !== undefined)
        for (let line = last + 1; line < scanned.number; line++)
          yield { row: ++row, line, size: 0, cells: [] };
      last = scanned.number;
      yield {
        ...readRow(scanned, cells, width, typed),
        row: ++row,
        line: scanned.number,
        size: at(),
      };
    }
  } catch (error) {
    throw workbookRefusal(error, name);
  }
}

/** A sheet row's cells as the import reads them, and as typed (for the rejects), or why it cannot be read. */
function readRow(
  { cells, number }: ScannedRow,
  reader: CellReader,
  width: number,
  keepTyped: boolean,
): { cells: Cell[]; typed?: TypedCell[] } | { error: string } {
  const read: Cell[] = Array(width).fill("");
  const typed: TypedCell[] | undefined = keepTyped
    ? Array.from({ length: width }, () => ({ value: null }))
    : undefined;
  const where = (cell: ScannedRow["cells"][number]): string =>
    `${columnName(cell.column)}${number}`;
  for (const cell of cells) {
    let value: TypedCell;
    try {
      value = reader.typed(cell);
    } catch (error) {
      if (!(error instanceof CellProblem)) throw error;
      return { error: `cell ${where(cell)} ${error.message}` };
    }
    if (cell.column > width) {
      if (isBlank(value.value)) continue;
      return {
        error: `has a value in column ${columnName(cell.column)}, which has no header (cell ${where(cell)})`,
      };
    }
    read[cell.column - 1] = importCell(value);
    if (typed) typed[cell.column - 1] = value;
  }
  return typed ? { cells: read, typed } : { cells: read };
}

const isBlank = (value: TypedCell["value"]): boolean =>
  value === null || (typeof value === "string" && value.trim() === "");
