// The bounds a workbook is read within (docs/cli.md, "Excel workbooks"): Excel's own limits on rows,
// columns and a cell's characters, and the size each part of the zip may unpack to. A file past one
// is refused as soon as the reader meets it, naming the limit, so a small crafted file cannot make
// the import unpack gigabytes, scan for minutes or index two billion rows.
import { UsageError } from "../usage-error.ts";
import { FORMATS_READ } from "./sniff.ts";

/** Excel's limits (Microsoft's "Excel specifications and limits"). */
export const MAX_ROWS = 1_048_576;
export const MAX_COLUMNS = 16_384;
export const MAX_CELL_CHARACTERS = 32_767;
/** Excel's number of cell formats: a styles part with more is no workbook Excel wrote or reads. */
export const MAX_CELL_FORMATS = 65_490;

/** A part unpacks to at most this much, and to at most RATIO times the whole file's size. */
export const MAX_PART_BYTES = 1024 ** 3;
export const MAX_PART_RATIO = 100;

/** The XML of one tag, or one cell's: far above what a cell of 32,767 characters needs. */
export const MAX_MARKUP = 4 * 1024 ** 2;

const count = (n: number): string => n.toLocaleString("en");

/** A workbook past one of the limits: a usage error (exit 2) naming it. */
export class WorkbookLimitError extends UsageError {}

/** A workbook whose bytes or XML are not what a workbook holds: truncated, damaged, or no workbook at all. */
export class UnreadableWorkbook extends Error {}

export const limits = {
  rows: (row: number): WorkbookLimitError =>
    new WorkbookLimitError(
      `the sheet has a row ${count(row)}, past Excel's limit of ${count(MAX_ROWS)} rows`,
    ),
  columns: (column: number): WorkbookLimitError =>
    new WorkbookLimitError(
      `the sheet has a cell in column ${count(column)}, past Excel's limit of ` +
        `${count(MAX_COLUMNS)} columns (XFD)`,
    ),
  characters: (where: string): WorkbookLimitError =>
    new WorkbookLimitError(
      `${where} holds more than ${count(MAX_CELL_CHARACTERS)} characters, Excel's limit for a cell`,
    ),
  part: (part: string, bound: number, why: string): WorkbookLimitError =>
    new WorkbookLimitError(
      `its part ${part} unpacks to more than ${count(bound)} bytes (${why}): a workbook is read ` +
        `only within ${count(MAX_PART_BYTES)} bytes and ${MAX_PART_RATIO} times the file's size a part`,
    ),
  strings: (most: number): WorkbookLimitError =>
    new WorkbookLimitError(
      `its shared strings list more than ${count(most)} texts, more than its sheets have cells to use`,
    ),
  formats: (): WorkbookLimitError =>
    new WorkbookLimitError(
      `its styles hold more than ${count(MAX_CELL_FORMATS)} cell formats, Excel's limit`,
    ),
  markup: (what: string): WorkbookLimitError =>
    new WorkbookLimitError(
      `${what} runs over ${count(MAX_MARKUP)} characters of XML, more than any cell Excel writes`,
    ),
};

/** The most a part may unpack to, for a file of `fileSize` bytes. */
export const partBound = (fileSize: number): { bytes: number; why: string } => {
  const byRatio = MAX_PART_RATIO * fileSize;
  return byRatio < MAX_PART_BYTES
    ? { bytes: byRatio, why: `${MAX_PART_RATIO} times the file's ${count(fileSize)} bytes` }
    : { bytes: MAX_PART_BYTES, why: "1 GiB" };
};

/** What the import says of a workbook that stopped the reader: the limit it passed, or that it is unreadable. */
export function workbookRefusal(error: unknown, name: string): unknown {
  if (error instanceof WorkbookLimitError)
    return new WorkbookLimitError(`${name} is refused: ${error.message}`);
  if (error instanceof UsageError) return error;
  if (error instanceof UnreadableWorkbook)
    return new UsageError(
      `${name} is unreadable as an Excel workbook: ${error.message}; ${FORMATS_READ}`,
    );
  return error;
}
