// Reads an Excel workbook (.xlsx) as import rows, streamed: ExcelTS's WorkbookReader (docs/cli.md says
// why that library) unzips it and reads its sheet list, shared strings and styles; sheet-xml.ts scans
// the cells. One sheet (the first, or --sheet NAME), its first non-empty row the header, every later
// row one import row. Cells are read as the cell holds its value rather than as the sheet displays
// it, and handed to the import typed (values.ts reads them as their fields): a date cell is a Date
// at UTC midnight of its day, a number a number (1250.5, not "€1,250.50"), a text cell its text
// (leading zeros kept), a formula cell its saved value. Empty rows are rows of empty cells, so the
// import counts them as blank, like CSV's.
import { existsSync } from "node:fs";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { WorkbookReader } from "@cj-tech-master/excelts";
import { UsageError } from "../usage-error.ts";
import type { ImportSource, Row } from "./source.ts";
import {
  type ScannedCell,
  type ScannedRow,
  SharedStringsScanner,
  SheetXmlScanner,
} from "./sheet-xml.ts";
import { FORMATS_READ } from "./sniff.ts";
import type { Cell } from "./values.ts";

/** A cell as the workbook typed it, kept for a rejects workbook (xlsx-rejects.ts). */
export interface TypedCell {
  value: string | number | boolean | Date | null;
  numFmt?: string;
}

/**
 * The typed cells of the rows read from a workbook, by their text cells: the import passes a row's
 * `cells` on to the rejects file, which finds here what the workbook had, without the rest of the
 * import knowing about workbooks.
 */
export const typedCells = new WeakMap<readonly Cell[], readonly TypedCell[]>();

export interface WorkbookOptions {
  /** The file's name (or "stdin"), for messages. */
  name: string;
  /** The sheet to read (--sheet); else the first visible one. */
  sheet: string | undefined;
  totalSize: number | undefined;
  /** Keep each row's typed cells (for a workbook of rejects); else only the text is kept. */
  typed: boolean;
}

/** A formula whose saved value is an error (#N/A, #DIV/0!, …) or that has none. */
class CellProblem extends Error {}

/**
 * The workbook's rows. A file is parsed on a worker thread (xlsx-worker.ts), beside the thread that
 * sends the batches: parsing a workbook costs several times what a CSV does, and on the import's
 * own thread it would hold up the next batch; stdin is parsed here, from the bytes already read.
 */
export async function openWorkbook(
  bytes: AsyncGenerator<Uint8Array>,
  options: WorkbookOptions & { file?: string | undefined },
): Promise<ImportSource> {
  if (options.file === undefined) return readWorkbook(bytes, options);
  await bytes.return(undefined);
  return workbookOnWorker(options.file, options);
}

/** What the worker posts: the header first, then rows (with their typed cells) in chunks, then the end. */
export type WorkerMessage =
  | { header: string[]; overhead: number }
  | { rows: (Row & { typed?: readonly TypedCell[] | undefined })[] }
  | { end: true }
  | { error: string; usage: boolean };

/** Chunks the worker may post ahead of the rows taken, so a fast parser does not fill memory. */
export const CHUNKS_AHEAD = 4;

/**
 * The worker's module: beside this one when run from the checkout; in the single-file binary
 * (`bun run --cwd cli build` bundles it as an entry of its own), where the bundler put it.
 */
function workerEntry(): URL {
  const beside = new URL("./xlsx-worker.ts", import.meta.url);
  if (existsSync(fileURLToPath(beside))) return beside;
  return new URL("./import/xlsx-worker.js", import.meta.url);
}

async function workbookOnWorker(file: string, options: WorkbookOptions): Promise<ImportSource> {
  const worker = new Worker(workerEntry(), {
    workerData: { ...options, file },
  });
  const queue: WorkerMessage[] = [];
  let waiting: (() => void) | undefined;
  worker.on("message", (message: WorkerMessage) => {
    queue.push(message);
    waiting?.();
  });
  worker.on("error", (error: Error) => {
    queue.push({ error: error.message, usage: false });
    waiting?.();
  });
  // After its last message a worker ends; ending without one (killed, out of memory) must not leave
  // the import waiting.
  worker.on("exit", (code: number) => {
    queue.push({ error: `the workbook reader stopped (exit code ${code})`, usage: false });
    waiting?.();
  });
  // The worker keeps the CLI alive only while the import waits for it: an import that stops early
  // (a header to fix, Ctrl-C) ends without waiting for the rest of the file to be parsed.
  worker.unref();
  const next = async (): Promise<WorkerMessage> => {
    if (queue.length === 0) {
      worker.ref();
      await new Promise<void>((resolve) => {
        waiting = resolve;
      });
      waiting = undefined;
      worker.unref();
    }
    const message = queue.shift()!;
    if ("error" in message) {
      void worker.terminate();
      throw message.usage ? new UsageError(message.error) : new Error(message.error);
    }
    return message;
  };
  const first = await next();
  if (!("header" in first)) throw new Error("the workbook reader sent rows before the header");
  async function* rows(): AsyncGenerator<Row> {
    try {
      for (;;) {
        const message = await next();
        if ("end" in message) return;
        if (!("rows" in message)) continue;
        worker.postMessage("more");
        for (const { typed, ...row } of message.rows) {
          if (typed && row.cells) typedCells.set(row.cells, typed);
          yield row;
        }
      }
    } finally {
      void worker.terminate();
    }
  }
  return {
    format: "xlsx",
    header: first.header,
    totalSize: options.totalSize,
    overhead: first.overhead,
    bom: false,
    blankLines: () => 0,
    rows: rows(),
  };
}

/** The workbook's rows, parsed on this thread. */
export async function readWorkbook(
  bytes: AsyncIterable<Uint8Array>,
  options: WorkbookOptions,
): Promise<ImportSource> {
  // Bytes read so far, so each row can say how much of the file it took (the progress bar's share).
  let read = 0;
  async function* counted(): AsyncGenerator<Uint8Array> {
    for await (const chunk of bytes) {
      read += chunk.length;
      yield chunk;
    }
  }
  // The library takes some 30 MB to load: a file's workbook loads it on the worker thread only, and
  // a CSV import not at all.
  const { WorkbookReader, isDateDisplayFormat } = await import("@cj-tech-master/excelts");
  const reader = new WorkbookReader(Readable.from(counted()), {
    sharedStrings: "cache",
    styles: "cache",
    worksheets: "emit",
    hyperlinks: "ignore",
    entries: "ignore",
    // A sheet stored before the workbook's index (as streaming writers store it) waits in a temporary
    // file, not in memory, so the library's 256 MB guard would only refuse big workbooks.
    maxBufferedWorksheetBytes: 16 * 1024 ** 3,
  });
  scanSharedStrings(reader);
  const rows = sheetRows(reader, isDateDisplayFormat, options);
  let header: string[] | undefined;
  let overhead = 0;
  let taken = 0;
  const at = (): number => {
    const size = read - taken;
    taken = read;
    return size;
  };
  try {
    for (;;) {
      const next = await rows.next();
      if (next.done) break;
      const { values } = next.value;
      if (values.every((value) => isEmpty(value))) continue;
      header = headerOf(values, next.value.number, next.value.sheet);
      overhead = at();
      break;
    }
  } catch (error) {
    throw unreadable(error, options.name);
  }
  if (!header)
    throw new UsageError(
      `${options.name}: the sheet has no rows; its first non-empty row must be a header naming the fields`,
    );
  return {
    format: "xlsx",
    header,
    totalSize: options.totalSize,
    overhead,
    bom: false,
    blankLines: () => 0,
    rows: dataRows(rows, header.length, at, options),
  };
}

/** The part of the library's reader that reads the shared strings, which this module replaces. */
interface SharedStringsPart {
  sharedStrings: unknown[] | undefined;
  _parseSharedStrings(entry: AsyncIterable<Uint8Array | string>): AsyncGenerator<unknown>;
}

/**
 * The shared strings scanned as the cells are (sheet-xml.ts), not by the library's SAX parser, which
 * took a quarter of a workbook's parsing: its method for that part is replaced on this reader (the
 * library's version is pinned; the tests read shared strings with entities, rich text and phonetic
 * runs). They are plain texts, a rich text's runs joined, as the import reads them.
 */
function scanSharedStrings(reader: WorkbookReader): void {
  // biome-ignore lint/correctness/useYield: the library iterates the method's result, which has no items here
  (reader as unknown as SharedStringsPart)._parseSharedStrings = async function* (
    this: SharedStringsPart,
    entry,
  ) {
    const scanner = new SharedStringsScanner();
    const decoder = new TextDecoder("utf-8");
    const strings: string[] = [];
    for await (const chunk of entry) {
      const text = typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
      for (const string of scanner.push(text)) strings.push(string);
    }
    for (const string of scanner.push(decoder.decode())) strings.push(string);
    this.sharedStrings = strings;
  };
}

/** A sheet row: its cells' values (1-based, as the library types them) and number formats. */
interface SheetRowOf {
  number: number;
  values: unknown[];
  numFmts: (string | undefined)[];
  sheet: string;
}

/** The rows of the chosen sheet; the other sheets are read through without being parsed. */
async function* sheetRows(
  reader: WorkbookReader,
  isDate: (numFmt: string) => boolean,
  options: WorkbookOptions,
): AsyncGenerator<SheetRowOf> {
  let names: string[] = [];
  for await (const worksheet of reader) {
    const sheets = reader.model?.sheets ?? [];
    names = sheets.map((sheet) => sheet.name);
    const wanted =
      options.sheet === undefined
        ? (
            sheets.find((sheet) => sheet.state !== "hidden" && sheet.state !== "veryHidden") ??
            sheets[0]
          )?.name
        : (names.find((name) => name === options.sheet) ??
          names.find((name) => name.toLowerCase() === options.sheet!.toLowerCase()));
    if (worksheet.name !== wanted) {
      // Read through, not left: the reader removes a sheet it had to set aside (written before the
      // workbook's index) while its file is still being opened, and that error would end the CLI.
      for await (const _ of worksheet.iterator);
      continue;
    }
    const date1904 = reader.properties?.model?.date1904 === true;
    const cells = new CellReader(reader, SharedStrings.take(reader), isDate, date1904);
    const scanner = new SheetXmlScanner();
    const decoder = new TextDecoder("utf-8");
    for await (const chunk of worksheet.iterator) {
      const text =
        typeof chunk === "string" ? chunk : decoder.decode(chunk as Uint8Array, { stream: true });
      for (const row of scanner.push(text)) yield { ...cells.read(row), sheet: worksheet.name };
    }
    for (const row of scanner.push(decoder.decode()))
      yield { ...cells.read(row), sheet: worksheet.name };
    return;
  }
  if (options.sheet !== undefined)
    throw new UsageError(
      `${options.name} has no sheet "${options.sheet}"; its sheets: ${names.map((name) => `"${name}"`).join(", ")}`,
    );
}

function headerOf(values: readonly unknown[], number: number, sheet: string): string[] {
  let width = values.length - 1;
  while (width > 0 && isEmpty(values[width])) width--;
  const header: string[] = [];
  for (let column = 1; column <= width; column++) {
    const text = textOf(typedOf(values[column]).value, undefined);
    if (text.trim() === "")
      throw new UsageError(
        `the header (row ${number} of the sheet "${sheet}") has no name in column ${columnName(column)}`,
      );
    header.push(text);
  }
  return header;
}

async function* dataRows(
  rows: AsyncGenerator<SheetRowOf>,
  width: number,
  at: () => number,
  { name, typed }: WorkbookOptions,
): AsyncGenerator<Row> {
  let row = 0;
  let last: number | undefined;
  try {
    for await (const sheetRow of rows) {
      // A row with nothing in it is not in the file at all: the rows skipped over were empty.
      if (last !== undefined)
        for (let line = last + 1; line < sheetRow.number; line++)
          yield { row: ++row, line, size: 0, cells: Array(width).fill("") };
      last = sheetRow.number;
      yield {
        ...readRow(sheetRow, width, typed),
        row: ++row,
        line: sheetRow.number,
        size: at(),
      };
    }
  } catch (error) {
    throw unreadable(error, name);
  }
}

/** A sheet row's cells as the import reads them (and with their formats, for the rejects), or why it cannot be read. */
function readRow(
  { values, numFmts, number }: SheetRowOf,
  width: number,
  keepTyped: boolean,
): { cells: Cell[] } | { error: string } {
  for (let column = width + 1; column < values.length; column++)
    if (!isEmpty(values[column]))
      return {
        error: `has a value in column ${columnName(column)}, which has no header (cell ${columnName(column)}${number})`,
      };
  const cells: Cell[] = [];
  const typed: TypedCell[] = [];
  for (let column = 1; column <= width; column++) {
    const value = values[column];
    const numFmt = numFmts[column];
    try {
      const cell = typedOf(value);
      if (keepTyped) typed.push(numFmt === undefined ? cell : { ...cell, numFmt });
      cells.push(importCell(cell.value, numFmt));
    } catch (error) {
      if (!(error instanceof CellProblem)) throw error;
      return { error: `cell ${columnName(column)}${number} ${error.message}` };
    }
  }
  if (keepTyped) typedCells.set(cells, typed);
  return { cells };
}

/**
 * The workbook's shared strings (xl/sharedStrings.xml: the text of its text cells, each string once),
 * as one text and where each string ends. The library reads them as an array of strings: some 150
 * bytes a string in all (44 MB for 300,000 strings), kept for as long as the sheet is read. This keeps
 * 4 bytes a string beside its text. A rich text's runs are its text, as the import reads it.
 */
class SharedStrings {
  private constructor(
    readonly text: string,
    readonly ends: Uint32Array,
  ) {}

  /** Takes the strings the library read, leaving it none (it has no more use for them). */
  static take(reader: WorkbookReader): SharedStrings {
    const strings = reader.sharedStrings ?? [];
    const ends = new Uint32Array(strings.length);
    let end = 0;
    const texts = strings.map((string, index) => {
      const text =
        typeof string === "string" ? string : string.richText.map((run) => run.text ?? "").join("");
      end += text.length;
      ends[index] = end;
      return text;
    });
    // An empty array, not none: the library takes none as "not read yet" and would set aside any
    // sheet that follows.
    if (reader.sharedStrings) reader.sharedStrings = [];
    return new SharedStrings(texts.join(""), ends);
  }

  /** String `index` (a cell naming one the part does not have is empty, as spreadsheet programs read it). */
  at(index: number): string {
    if (!(index >= 0 && index < this.ends.length)) return "";
    return this.text.slice(index === 0 ? 0 : this.ends[index - 1], this.ends[index]);
  }
}

/**
 * A scanned row's cells as the library would type them: shared strings looked up, numbers as numbers,
 * numbers in a date format as dates, formulas as their saved result; and each cell's number format.
 */
class CellReader {
  readonly #formats = new Map<number, { numFmt: string | undefined; date: boolean }>();

  constructor(
    readonly reader: WorkbookReader,
    readonly strings: SharedStrings,
    readonly isDate: (numFmt: string) => boolean,
    readonly date1904: boolean,
  ) {}

  read(row: ScannedRow): { number: number; values: unknown[]; numFmts: (string | undefined)[] } {
    const values: unknown[] = [];
    const numFmts: (string | undefined)[] = [];
    for (const cell of row.cells) {
      const format = cell.style === undefined ? undefined : this.#format(cell.style);
      numFmts[cell.column] = format?.numFmt;
      values[cell.column] = this.#value(cell, format?.date === true);
    }
    return { number: row.number, values, numFmts };
  }

  #value({ type, value, formula }: ScannedCell, date: boolean): unknown {
    if (formula) {
      if (value === undefined) return { formula: "", result: undefined };
      if (type === "e") return { formula: "", result: { error: value } };
      if (type === "str") return { formula: "", result: value };
      if (type === "b") return { formula: "", result: value !== "0" };
      // A number in a date format is a date, a formula's result too.
      const number = Number(value);
      return {
        formula: "",
        result: date && !Number.isNaN(number) ? serialToDate(number, this.date1904) : number,
      };
    }
    if (value === undefined) return null;
    switch (type) {
      case "s":
        return this.strings.at(Number(value));
      case "inlineStr":
      case "str":
        return value;
      case "b":
        return value !== "0";
      case "e":
        return { error: value };
      case "d":
        return new Date(/Z|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
      default: {
        const number = Number(value);
        return date ? serialToDate(number, this.date1904) : number;
      }
    }
  }

  #format(style: number): { numFmt: string | undefined; date: boolean } {
    let format = this.#formats.get(style);
    if (!format) {
      const numFmt = this.reader.styles.getStyleModel(style)?.numFmt as
        | string
        | { formatCode?: string }
        | undefined;
      const code = typeof numFmt === "string" ? numFmt : numFmt?.formatCode;
      format = { numFmt: code, date: code !== undefined && this.isDate(code) };
      this.#formats.set(style, format);
    }
    return format;
  }
}

/** The value a cell holds: a formula's saved result. */
function typedOf(value: unknown): TypedCell {
  if (value === null || value === undefined) return { value: null };
  if (
    typeof value === "string" ||
    typeof value === "number" ||
    typeof value === "boolean" ||
    value instanceof Date
  )
    return { value };
  if (!isObject(value)) return { value: String(value) };
  if ("formula" in value || "sharedFormula" in value) {
    const result = value.result;
    if (result === undefined || result === null)
      throw new CellProblem(
        "holds a formula with no saved value: open the file in a spreadsheet program and save it",
      );
    if (typeof result === "number" && Number.isNaN(result))
      throw new CellProblem("holds a formula whose value is an error (such as #N/A or #DIV/0!)");
    if (isObject(result) && "error" in result)
      throw new CellProblem(`holds a formula whose value is the error ${String(result.error)}`);
    return typedOf(result);
  }
  if ("error" in value) return { value: String(value.error) };
  return { value: String(value) };
}

/**
 * The cell the import reads (values.ts): a number stays a number (so --decimal-comma, meant for
 * text, does not apply to it), with its currency when its format shows one; a date at midnight a
 * Date, a date with a time of day its ISO text; a number formatted with zeros only (`00000`, for
 * codes such as post codes) its digits with the leading zeros.
 */
function importCell(value: TypedCell["value"], numFmt: string | undefined): Cell {
  if (value === null) return "";
  if (value instanceof Date) {
    const at = toTheSecond(value);
    return at % DAY_MS === 0 ? new Date(at) : dateText(value);
  }
  if (typeof value === "number" && numFmt) {
    if (/^0+$/.test(numFmt)) return numberText(value, numFmt);
    const symbol = currencyOf(numFmt);
    if (symbol !== undefined) return { number: value, symbol };
  }
  return value;
}

const currencies = new Map<string, string | undefined>();

/**
 * The currency symbol or code a number format shows, if any: `[$€-407]#,##0.00` and `[$EUR]
 * #,##0.00` (Excel's currency formats), `"€"#,##0.00` or `#,##0.00 "EUR"` (quoted), `$#,##0.00`,
 * `_-* #,##0.00 £_-` (a symbol as it is). `[$-409]` names a locale only, `[Red]` a colour.
 */
export function currencyOf(numFmt: string): string | undefined {
  if (currencies.has(numFmt)) return currencies.get(numFmt);
  let symbol: string | undefined;
  const bracket = /\[\$([^\]-]+)(?:-[0-9A-Fa-f]+)?\]/.exec(numFmt);
  if (bracket) symbol = bracket[1]!.trim();
  else {
    const quoted = [...numFmt.matchAll(/"([^"]*)"/g)]
      .map((match) => match[1]!.trim())
      .find((text) => /^(?:[A-Z]{0,2}\$|\p{Sc}|[A-Z]{3}|zł|Kč)$/u.test(text));
    // Colours, conditions and locales in brackets are not shown; quoted text is no symbol here.
    const shown = numFmt.replace(/"[^"]*"|\[[^\]]*\]/g, "");
    symbol = quoted ?? /\p{Sc}/u.exec(shown)?.[0];
  }
  currencies.set(numFmt, symbol || undefined);
  return symbol || undefined;
}

/** A cell's value as text: a header's name. */
function textOf(value: TypedCell["value"], numFmt: string | undefined): string {
  if (value === null) return "";
  if (value instanceof Date) return dateText(value);
  if (typeof value === "number") return numberText(value, numFmt);
  if (typeof value === "boolean") return value ? "true" : "false";
  return value;
}

const DAY_MS = 86_400_000;

/** A date cell's time, rounded to the second as a spreadsheet shows it (epoch milliseconds). */
const toTheSecond = (date: Date): number => Math.round(date.getTime() / 1000) * 1000;

/** A date cell as YYYY-MM-DD (with the time of day, to the second, when it has one). */
function dateText(date: Date): string {
  const iso = new Date(toTheSecond(date)).toISOString();
  return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso.slice(0, 19);
}

/**
 * A number as its digits: a workbook keeps binary floating point, so a sum such as 0.1 + 0.2 is read
 * to the 15 significant digits a spreadsheet shows (0.3). A format of zeros only (`00000`, used for
 * codes such as post codes) keeps its leading zeros.
 */
function numberText(value: number, numFmt: string | undefined): string {
  let text = String(value);
  // At most 15 characters hold at most 15 significant digits: nothing to round.
  if (text.length > 15 && !Number.isInteger(value)) text = String(Number(value.toPrecision(15)));
  if (numFmt && /^0+$/.test(numFmt) && Number.isInteger(value) && value >= 0)
    return text.padStart(numFmt.length, "0");
  return text;
}

/** Excel's day number as a date (days since 1899-12-30, or since 1904-01-01 in a 1904 workbook). */
function serialToDate(serial: number, date1904: boolean): Date {
  return new Date(Math.round((serial - 25569 + (date1904 ? 1462 : 0)) * 86_400_000));
}

function isEmpty(value: unknown): boolean {
  return (
    value === null || value === undefined || (typeof value === "string" && value.trim() === "")
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** 1 → A, 27 → AA. */
export function columnName(column: number): string {
  let name = "";
  for (let rest = column; rest > 0; rest = Math.floor((rest - 1) / 26))
    name = String.fromCharCode(65 + ((rest - 1) % 26)) + name;
  return name;
}

/** A workbook the library cannot read (a damaged file, a zip that is no workbook) is a usage error. */
function unreadable(error: unknown, name: string): unknown {
  if (error instanceof UsageError) return error;
  return new UsageError(
    `${name} cannot be read as an Excel workbook (${(error as Error).message}); ${FORMATS_READ}`,
  );
}
