// Scans a workbook's XML chunk by chunk, in one pass (xml-tokens.ts): a worksheet's
// (xl/worksheets/sheetN.xml) for its rows and cells, the shared strings' part (xl/sharedStrings.xml)
// for their texts. Excel's limits are checked as the tags come (a row past 1,048,576, a column past
// XFD, a text past 32,767 characters), and a part whose XML ends inside a row or string is cut short.
import {
  limits,
  MAX_CELL_CHARACTERS,
  MAX_COLUMNS,
  MAX_MARKUP,
  MAX_ROWS,
  UnreadableWorkbook,
} from "./workbook-limits.ts";
import { attributes, decodeXml, type XmlHandler, XmlTokens } from "./xml-tokens.ts";

/** One `<c>` element: its column, type (`t`), style index (`s`), value (`<v>` or inline text), formula or not. */
export interface ScannedCell {
  column: number;
  type: string | undefined;
  style: number | undefined;
  /** The `<v>` text, or an inline string's text; undefined when the cell has none. */
  value: string | undefined;
  formula: boolean;
}

export interface ScannedRow {
  number: number;
  cells: ScannedCell[];
}

/** The attributes as spreadsheet programs write a cell's, in this order, plain: one match for all three. */
const USUAL_CELL = /^\s*r="([A-Za-z$]+[$\d]+)"(?:\s+s="(\d+)")?(?:\s+t="([a-zA-Z]+)")?\s*$/;
/** A row's number among the many attributes some programs write. */
const ROW_NUMBER = /(?:^|\s)r\s*=\s*["']\s*(\d+)\s*["']/;

/** What the text being read is: nothing kept, a cell's `<v>`, a run of an inline string. */
const Text = { None: 0, Value: 1, Run: 2 } as const;
type Text = (typeof Text)[keyof typeof Text];

/** Text collected for the element being read, bounded. */
class Collected {
  #raw = "";

  constructor(private readonly what: () => string) {}

  add(raw: string): void {
    this.#raw = this.#raw === "" ? raw : this.#raw + raw;
    if (this.#raw.length > MAX_MARKUP) throw limits.markup(this.what());
  }

  /** The text decoded, and the collection emptied. */
  take(): string {
    const raw = this.#raw;
    this.#raw = "";
    return decodeXml(raw);
  }
}

export class SheetXmlScanner implements XmlHandler {
  readonly #tokens = new XmlTokens(this, "the sheet");
  #rows: ScannedRow[] = [];
  #sheetData: "before" | "in" | "after" = "before";
  #row: ScannedRow | undefined;
  #lastRow = 0;
  #lastColumn = 0;
  #cell: ScannedCell | undefined;
  #inline: string | undefined;
  #phonetic = false;
  #text: Text = Text.None;
  readonly #collected = new Collected(() => `cell ${this.#where()}`);

  get wantsText(): boolean {
    return this.#text !== Text.None;
  }

  /** The rows a chunk completes; a row cut by the chunk's end comes with a later one. */
  push(chunk: string): ScannedRow[] {
    this.#tokens.push(chunk);
    const rows = this.#rows;
    this.#rows = [];
    return rows;
  }

  /** The part has ended: its XML must have closed the sheet's data. */
  end(): ScannedRow[] {
    this.#tokens.end();
    if (this.#sheetData !== "after")
      throw new UnreadableWorkbook(
        this.#sheetData === "before"
          ? "its sheet has no sheetData element"
          : "its sheet's XML ends inside the data (the file is cut short)",
      );
    return this.push("");
  }

  open(name: string, attributes: string, empty: boolean): void {
    if (this.#sheetData !== "in") {
      if (name === "sheetData" && this.#sheetData === "before")
        this.#sheetData = empty ? "after" : "in";
      return;
    }
    if (this.#cell) this.#inCell(name, empty);
    else if (name === "c") this.#openCell(attributes, empty);
    else if (name === "row") this.#openRow(attributes, empty);
  }

  close(name: string): void {
    if (this.#sheetData !== "in") return;
    if (this.#cell) {
      if (name === "v" && this.#text === Text.Value) {
        this.#cell.value = this.#collected.take();
        this.#text = Text.None;
      } else if (name === "t" && this.#text === Text.Run) {
        this.#inline = (this.#inline ?? "") + this.#collected.take();
        this.#text = Text.None;
        if (this.#inline.length > MAX_CELL_CHARACTERS)
          throw limits.characters(`cell ${this.#where()}`);
      } else if (name === "rPh") this.#phonetic = false;
      else if (name === "is" && this.#inline !== undefined) {
        this.#cell.value = decodeEscapes(this.#inline);
        this.#inline = undefined;
      } else if (name === "c") this.#closeCell();
      return;
    }
    if (name === "row" && this.#row) {
      this.#rows.push(this.#row);
      this.#row = undefined;
    } else if (name === "sheetData") {
      if (this.#row) throw new UnreadableWorkbook("its sheet closes its data inside a row");
      this.#sheetData = "after";
    }
  }

  text(raw: string): void {
    this.#collected.add(raw);
  }

  #openRow(tag: string, empty: boolean): void {
    if (this.#row)
      throw new UnreadableWorkbook(`its sheet opens a row inside row ${this.#row.number}`);
    const given = ROW_NUMBER.exec(tag)?.[1];
    const number = given === undefined ? this.#lastRow + 1 : Number(given);
    if (number > MAX_ROWS) throw limits.rows(number);
    if (number <= this.#lastRow)
      throw new UnreadableWorkbook(`its sheet has row ${number} after row ${this.#lastRow}`);
    this.#lastRow = number;
    this.#lastColumn = 0;
    // <row r="5"/>: a row with nothing in it, as good as absent.
    if (!empty) this.#row = { number, cells: [] };
  }

  #openCell(tag: string, empty: boolean): void {
    if (!this.#row) throw new UnreadableWorkbook("its sheet has a cell outside any row");
    const usual = USUAL_CELL.exec(tag);
    const found = usual ? undefined : attributes(tag);
    const [r, s, t] = usual ? [usual[1], usual[2], usual[3]] : [found!.r, found!.s, found!.t];
    const column = r === undefined ? this.#lastColumn + 1 : columnOf(r);
    if (column > MAX_COLUMNS) throw limits.columns(column);
    if (column === 0) throw new UnreadableWorkbook(`its sheet has a cell at "${r}"`);
    this.#lastColumn = column;
    const cell: ScannedCell = {
      column,
      type: t,
      style: s === undefined ? undefined : Number(s),
      value: undefined,
      formula: false,
    };
    if (empty) this.#row.cells.push(cell);
    else this.#cell = cell;
  }

  #inCell(name: string, empty: boolean): void {
    const cell = this.#cell!;
    if (name === "c" || name === "row")
      throw new UnreadableWorkbook(
        `its sheet opens a ${name === "c" ? "cell" : "row"} inside cell ${this.#where()}`,
      );
    if (name === "f") cell.formula = true;
    else if (empty) return;
    else if (name === "v") this.#text = Text.Value;
    else if (name === "is") this.#inline = "";
    else if (name === "rPh") this.#phonetic = true;
    else if (name === "t" && this.#inline !== undefined && !this.#phonetic) this.#text = Text.Run;
  }

  #closeCell(): void {
    const cell = this.#cell!;
    if (cell.value !== undefined && cell.value.length > MAX_CELL_CHARACTERS)
      throw limits.characters(`cell ${this.#where()}`);
    this.#row!.cells.push(cell);
    this.#cell = undefined;
    this.#inline = undefined;
    this.#phonetic = false;
    this.#text = Text.None;
  }

  #where(): string {
    return `${columnName(this.#lastColumn)}${this.#lastRow}`;
  }
}

/**
 * The shared strings' texts in their order, as the chunks complete them (a string's runs joined,
 * without phonetic ones).
 */
export class SharedStringsScanner implements XmlHandler {
  readonly #tokens = new XmlTokens(this, "xl/sharedStrings.xml");
  #strings: string[] = [];
  #current: string | undefined;
  #phonetic = false;
  #inRun = false;
  readonly #collected = new Collected(() => `shared string ${this.#count + 1}`);
  #count = 0;

  get wantsText(): boolean {
    return this.#inRun;
  }

  push(chunk: string): string[] {
    this.#tokens.push(chunk);
    const strings = this.#strings;
    this.#strings = [];
    return strings;
  }

  end(): string[] {
    this.#tokens.end();
    if (this.#current !== undefined)
      throw new UnreadableWorkbook(
        "its shared strings end inside a string (the file is cut short)",
      );
    return this.push("");
  }

  open(name: string, _attributes: string, empty: boolean): void {
    if (name === "si") {
      if (empty) this.#add("");
      else this.#current = "";
    } else if (this.#current === undefined || empty) return;
    else if (name === "rPh") this.#phonetic = true;
    else if (name === "t" && !this.#phonetic) this.#inRun = true;
  }

  close(name: string): void {
    if (this.#current === undefined) return;
    if (name === "t" && this.#inRun) {
      this.#current += this.#collected.take();
      this.#inRun = false;
      if (this.#current.length > MAX_CELL_CHARACTERS)
        throw limits.characters(`shared string ${this.#count + 1}`);
    } else if (name === "rPh") this.#phonetic = false;
    else if (name === "si") {
      this.#add(decodeEscapes(this.#current));
      this.#current = undefined;
    }
  }

  text(raw: string): void {
    this.#collected.add(raw);
  }

  #add(text: string): void {
    this.#strings.push(text);
    this.#count++;
  }
}

/** `B12` → 2, `AA3` → 27 (a `$` is allowed); past XFD it stops counting, being too far already. */
function columnOf(reference: string): number {
  let column = 0;
  for (let at = 0; at < reference.length && column <= MAX_COLUMNS; at++) {
    const code = reference.charCodeAt(at);
    if (code >= 65 && code <= 90) column = column * 26 + code - 64;
    else if (code >= 97 && code <= 122) column = column * 26 + code - 96;
    else if (code !== 36) break;
  }
  return column;
}

/** 1 → A, 27 → AA. */
export function columnName(column: number): string {
  let name = "";
  for (let rest = column; rest > 0; rest = Math.floor((rest - 1) / 26))
    name = String.fromCharCode(65 + ((rest - 1) % 26)) + name;
  return name;
}

/** OOXML's `_xHHHH_` escapes (characters XML cannot hold, such as control characters). */
function decodeEscapes(text: string): string {
  if (!text.includes("_x")) return text;
  return text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}
