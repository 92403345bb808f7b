// A workbook's cell in two steps: the scanned cell (sheet-xml.ts) as the workbook types it (a
// TypedCell: shared strings looked up, numbers in a date format as dates, a formula as its saved
// value), then as the import reads it (a Cell, values.ts): a number shown in a currency is an
// amount in it, a code formatted 00000 keeps its zeros, a date at midnight is its day.
import { unescapeFormula } from "../formula-escape.ts";
import type { ScannedCell } from "./sheet-xml.ts";
import type { Cell } from "./values.ts";
import type { SharedStrings } from "./workbook-parts.ts";

/** A cell as the workbook typed it, kept on the row for a rejects workbook (xlsx-rejects.ts). */
export interface TypedCell {
  value: string | number | boolean | Date | null;
  numFmt?: string;
}

/** Why a cell cannot be read: a formula whose saved value is an error (#N/A, #DIV/0!, …) or that has none. */
export class CellProblem extends Error {}

export class CellReader {
  readonly #dates = new Map<number, boolean>();

  constructor(
    private readonly strings: SharedStrings,
    /** The number format of each cell style, by the style's index. */
    private readonly formats: readonly (string | undefined)[],
    private readonly date1904: boolean,
  ) {}

  /** Step one: the cell as the workbook types it. */
  typed(cell: ScannedCell): TypedCell {
    const numFmt = cell.style === undefined ? undefined : this.formats[cell.style];
    const value = this.#value(cell, numFmt !== undefined && this.#isDate(cell.style!, numFmt));
    return numFmt === undefined ? { value } : { value, numFmt };
  }

  #value({ type, value, formula }: ScannedCell, date: boolean): TypedCell["value"] {
    if (formula) {
      if (value === undefined || value === "")
        throw new CellProblem(
          "holds a formula with no saved value: open the file in a spreadsheet program and save it",
        );
      if (type === "e") throw new CellProblem(`holds a formula whose value is the error ${value}`);
      if (type === "str" || type === "inlineStr") return value;
      if (type === "b") return value !== "0";
    } else {
      if (value === undefined || value === "") return null;
      if (type === "s") return this.strings.at(Number(value));
      if (type === "inlineStr" || type === "str" || type === "e") return value;
      if (type === "b") return value !== "0";
      if (type === "d") return new Date(/Z|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
    }
    const number = Number(value);
    if (Number.isNaN(number))
      throw new CellProblem(
        formula
          ? "holds a formula whose value is an error (such as #N/A or #DIV/0!)"
          : `holds ${JSON.stringify(value)} where its type says a number`,
      );
    return date ? serialToDate(number, this.date1904) : number;
  }

  #isDate(style: number, numFmt: string): boolean {
    let date = this.#dates.get(style);
    if (date === undefined) {
      date = isDateFormat(numFmt);
      this.#dates.set(style, date);
    }
    return date;
  }
}

/**
 * Step two: the cell the import reads (values.ts). A number stays a number (so --decimal-comma,
 * meant for text, does not apply to it), with its currency when its format shows one; a date at
 * midnight a Date, a date with a time of day its ISO text; a number formatted with zeros only
 * (`00000`, for codes such as post codes) its digits with the leading zeros; a text escaped against
 * formulas (`'=1+1`, from a CSV export a spreadsheet program saved) its text.
 */
export function importCell({ value, numFmt }: TypedCell): Cell {
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
  return typeof value === "string" ? unescapeFormula(value) : value;
}

/** A cell's value as text: a header's name. */
export function cellText({ value, numFmt }: TypedCell): string {
  if (value === null) return "";
  if (value instanceof Date) return dateText(value);
  if (typeof value === "number") return numberText(value, numFmt);
  if (typeof value === "boolean") return value ? "true" : "false";
  return value;
}

/**
 * Whether a number format shows a date (Excel's rule): a day or year part, or a month part without
 * an hour or second, outside quoted text and brackets; `[h]:mm` is a duration.
 */
export function isDateFormat(numFmt: string): boolean {
  const unquoted = numFmt.replace(/"[^"]*"/g, "");
  if (/\[[hms]\]/i.test(unquoted)) return false;
  const shown = unquoted.replace(/\[[^\]]*\]/g, "");
  if (/[yd]/i.test(shown)) return true;
  return /m/i.test(shown) && !/[hs]/i.test(shown) && !/AM\/PM|A\/P/i.test(shown);
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
  return new Date(Math.round((serial - 25569 + (date1904 ? 1462 : 0)) * DAY_MS));
}
