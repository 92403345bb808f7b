// A spreadsheet's cell as the API wants the field's value: `1,250.50`, `€45` and `45 EUR` are amounts,
// `15.03.2024` a date when --date-format names its layout, `Yes` a boolean. Day-first and month-first
// are never guessed: a date that is not ISO needs --date-format. CSV cells are text; a workbook's
// cells may already be typed (a number, a date, a boolean), and go through the same rules.
import type { FieldKind as CollectionFieldKind } from "@erp/sdk";

/** A cell: text as written, or a workbook's typed value (a date cell is a Date at UTC midnight of its day). */
export type Cell = string | number | boolean | Date | MoneyCell;

/**
 * A workbook's number shown in a currency (its number format names one: `"€"#,##0.00`, `[$EUR]
 * #,##0.00`): an amount with that symbol or code, read as `€1250.5` would be. A plain object, so it
 * crosses to and from the workbook reader's thread as it is.
 */
export interface MoneyCell {
  number: number;
  symbol: string;
}

const isMoney = (cell: Cell): cell is MoneyCell =>
  typeof cell === "object" && !(cell instanceof Date);

/**
 * How a cell is read for a field: by the field's kind in the SDK's collection table (a custom
 * field's by its type). A `decimal` is a number sent as text, as an amount is, but with no currency.
 */
export type FieldKind =
  | "amount"
  | "number"
  | "decimal"
  | "integer"
  | "id"
  | "date"
  | "boolean"
  | "text";

const READINGS: Partial<Record<CollectionFieldKind, FieldKind>> = {
  money: "amount",
  number: "number",
  integer: "integer",
  reference: "id",
  date: "date",
  boolean: "boolean",
};

/** A field of this kind (`date`, `money`, …; undefined: not in the table) is read as this; text otherwise. */
export function fieldKind(kind: CollectionFieldKind | undefined): FieldKind {
  return (kind && READINGS[kind]) ?? "text";
}

/** The layout --date-format names: which part comes first, and how many digits the year has. */
export interface DateFormat {
  text: string;
  order: readonly ("D" | "M" | "Y")[];
  yearDigits: 2 | 4;
}

export interface ValueOptions {
  /** The comma is the decimal mark (`1.250,50`): --decimal-comma. */
  decimalComma: boolean;
  dateFormat: DateFormat | undefined;
}

export type Value =
  /** `currencies`: the codes an amount's symbol may stand for (`$` is any dollar), when it had one. */
  { value: string | number | boolean; currencies?: readonly string[] } | { error: string };

/** `DD.MM.YYYY`, `MM/DD/YY`, `YYYY-MM-DD`: day, month and year (YY or YYYY) in a readable order, one separator. */
export function parseDateFormat(text: string): DateFormat | undefined {
  const match = /^(DD|MM|YYYY|YY)([./-])(DD|MM|YYYY|YY)\2(DD|MM|YYYY|YY)$/i.exec(text.trim());
  if (!match) return undefined;
  const parts = [match[1]!, match[3]!, match[4]!].map((part) => part.toUpperCase());
  const order = parts.map((part) => part[0] as "D" | "M" | "Y");
  if (!["DMY", "MDY", "YMD"].includes(order.join(""))) return undefined;
  const year = parts.find((part) => part.startsWith("Y"))!;
  return { text: parts.join(match[2]!), order, yearDigits: year.length === 4 ? 4 : 2 };
}

export const isEmptyCell = (cell: Cell): boolean => typeof cell === "string" && cell.trim() === "";

/** The value to send for a cell of a field of this kind, or a sentence saying why it cannot be read. */
export function normalise(cell: Cell, kind: FieldKind, options: ValueOptions): Value {
  switch (kind) {
    case "amount":
    case "number":
    case "decimal":
    case "integer":
    case "id":
      return numberOf(cell, kind, options);
    case "date":
      return dateOf(cell, options.dateFormat);
    case "boolean":
      return booleanOf(cell);
    default:
      return { value: textOf(cell) };
  }
}

/** A cell as text: a workbook's number as it reads (15 significant digits, as the spreadsheet keeps), a date as ISO. */
export function textOf(cell: Cell): string {
  if (typeof cell === "string") return cell.trim();
  if (isMoney(cell)) return `${cell.symbol}${textOf(cell.number)}`;
  if (typeof cell === "number") return String(Number(cell.toPrecision(15)));
  if (cell instanceof Date) return isoDay(cell);
  return String(cell);
}

const isoDay = (date: Date): string =>
  date.getUTCHours() === 0 && date.getUTCMinutes() === 0 && date.getUTCSeconds() === 0
    ? date.toISOString().slice(0, 10)
    : date.toISOString();

const DOLLARS = ["USD", "CAD", "AUD", "NZD", "SGD", "HKD", "MXN", "TWD"];
/** What a currency symbol may stand for; an ISO code stands for itself. */
const SYMBOLS: Record<string, readonly string[]> = {
  $: DOLLARS,
  US$: ["USD"],
  C$: ["CAD"],
  CA$: ["CAD"],
  A$: ["AUD"],
  AU$: ["AUD"],
  NZ$: ["NZD"],
  S$: ["SGD"],
  HK$: ["HKD"],
  MX$: ["MXN"],
  R$: ["BRL"],
  "€": ["EUR"],
  "£": ["GBP"],
  "¥": ["JPY", "CNY"],
  "₹": ["INR"],
  "₩": ["KRW"],
  "₽": ["RUB"],
  "₺": ["TRY"],
  "₪": ["ILS"],
  "₱": ["PHP"],
  "₴": ["UAH"],
  "₦": ["NGN"],
  "฿": ["THB"],
  "₫": ["VND"],
  zł: ["PLN"],
  Kč: ["CZK"],
};
const SYMBOL = "(?:[A-Z]{0,2}\\$|\\p{Sc}|zł|Kč|[A-Za-z]{3}(?![A-Za-z]))";
const LEADING = new RegExp(`^(${SYMBOL})\\s*`, "u");
const TRAILING = new RegExp(`\\s*(${SYMBOL})$`, "u");

/** What a currency symbol or ISO code (in any case) may stand for; undefined when it is neither. */
const currenciesOf = (symbol: string): readonly string[] | undefined =>
  SYMBOLS[symbol] ?? (/^[A-Za-z]{3}$/.test(symbol) ? [symbol.toUpperCase()] : undefined);

/** A number as the API takes it already: most cells of most files, read without the rules below. */
const PLAIN_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/** Spaces a spreadsheet puts between groups of thousands: the plain, the no-break and the narrow no-break one. */
const SPACES = " \u00a0\u202f";
const APOSTROPHES = "'\u2019";

function numberOf(cell: Cell, kind: FieldKind, options: ValueOptions): Value {
  const what =
    kind === "amount"
      ? "an amount"
      : kind === "number" || kind === "decimal"
        ? "a number"
        : "a whole number";
  if (typeof cell === "boolean" || cell instanceof Date)
    return { error: `${JSON.stringify(textOf(cell))} is not ${what}` };
  let text: string;
  let currencies: readonly string[] | undefined;
  if (typeof cell === "number") text = textOf(cell);
  else if (isMoney(cell)) {
    text = textOf(cell.number);
    // The format only shows the number: a field that is no amount takes the number, and a symbol
    // this import does not know leaves the amount without a currency rather than refusing it.
    if (kind === "amount") currencies = currenciesOf(cell.symbol);
  } else if (!options.decimalComma && PLAIN_NUMBER.test(cell)) text = cell;
  else {
    const read = readNumber(cell.trim(), options.decimalComma);
    if ("error" in read)
      return { error: `cannot read ${JSON.stringify(cell.trim())} as ${what}: ${read.error}` };
    if (read.currencies && kind !== "amount")
      return { error: `${JSON.stringify(cell.trim())} carries a currency, but ${what} has none` };
    text = read.text;
    currencies = read.currencies;
  }
  if (kind === "amount") return currencies ? { value: text, currencies } : { value: text };
  if (kind === "decimal") return { value: text };
  if ((kind === "integer" || kind === "id") && !/^-?\d+$/.test(text))
    return { error: `${JSON.stringify(textOf(cell))} is not ${what}` };
  return { value: Number(text) };
}

/** `-€1,250.50` → `-1250.50` and EUR; the groups of thousands must be whole (`1,25` is no number). */
function readNumber(
  written: string,
  decimalComma: boolean,
): { text: string; currencies?: readonly string[] } | { error: string } {
  let text = written;
  let negative = false;
  const accounting = /^\((.*)\)$/.exec(text);
  if (accounting) [negative, text] = [true, accounting[1]!.trim()];
  const sign = (): void => {
    if (/^[-\u2212]/.test(text)) [negative, text] = [!negative, text.slice(1).trimStart()];
  };
  sign();
  let symbol: string | undefined;
  const leading = LEADING.exec(text);
  if (leading) [symbol, text] = [leading[1], text.slice(leading[0].length)];
  sign();
  const trailing = symbol === undefined ? TRAILING.exec(text) : null;
  if (trailing) [symbol, text] = [trailing[1], text.slice(0, text.length - trailing[0].length)];
  let currencies: readonly string[] | undefined;
  if (symbol !== undefined) {
    currencies = currenciesOf(symbol);
    if (!currencies)
      return {
        error: `${symbol} is no currency this import knows; give its ISO code, e.g. 45 EUR`,
      };
  }
  const mark = decimalComma ? "," : ".";
  const groups = decimalComma ? `.${SPACES}${APOSTROPHES}` : `,${SPACES}${APOSTROPHES}`;
  const at = text.lastIndexOf(mark);
  const whole = at < 0 ? text : text.slice(0, at);
  const fraction = at < 0 ? "" : text.slice(at + 1);
  const separator = [...whole].find((char) => groups.includes(char));
  const grouped =
    separator === undefined ? /^\d*$/ : new RegExp(`^\\d{1,3}(?:\\${separator}\\d{3})+$`);
  const readable =
    grouped.test(whole) &&
    /^\d*$/.test(fraction) &&
    (whole !== "" || fraction !== "") &&
    (at < 0 || fraction !== "");
  if (!readable) {
    const hint = decimalComma
      ? "with --decimal-comma write it like 1250,50 or 1.250,50"
      : /^\d+,\d{1,2}$/.test(text)
        ? "write it like 1250.50 or 1,250.50, or use --decimal-comma for 1.250,50"
        : "write it like 1250.50 or 1,250.50";
    return { error: hint };
  }
  const digits = whole.replaceAll(separator ?? "", "").replace(/^0+(?=\d)/, "") || "0";
  const number = fraction === "" ? digits : `${digits}.${fraction}`;
  return {
    text: negative && /[1-9]/.test(number) ? `-${number}` : number,
    ...(currencies ? { currencies } : {}),
  };
}

function dateOf(cell: Cell, format: DateFormat | undefined): Value {
  if (cell instanceof Date) {
    if (Number.isNaN(cell.getTime())) return { error: "the date cell holds no date" };
    return { value: cell.toISOString().slice(0, 10) };
  }
  const text = textOf(cell);
  // A date exported with its midnight (`2024-03-15 00:00:00`, `2024-03-15T00:00:00Z`) is that day.
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[ T]00:00(?::00(?:\.0+)?)?Z?)?$/.exec(text);
  if (iso) return day(text, Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const parts =
    typeof cell === "string" ? /^(\d{1,4})([./-])(\d{1,4})\2(\d{1,4})$/.exec(text) : null;
  if (!format)
    return {
      error:
        `${JSON.stringify(text)} is not a date as YYYY-MM-DD; if it is day-first or month-first, ` +
        "say which with --date-format (e.g. --date-format DD.MM.YYYY)",
    };
  const refusal = {
    error: `${JSON.stringify(text)} is neither YYYY-MM-DD nor ${format.text} (--date-format)`,
  };
  if (!parts) return refusal;
  const numbers = [parts[1]!, parts[3]!, parts[4]!];
  const at = (part: "D" | "M" | "Y"): string => numbers[format.order.indexOf(part)]!;
  const [d, m, y] = [at("D"), at("M"), at("Y")];
  if (d.length > 2 || m.length > 2 || y.length !== format.yearDigits) return refusal;
  // Two-digit years as spreadsheets read them: 00-29 are 2000-2029, 30-99 are 1930-1999.
  const year = y.length === 2 ? Number(y) + (Number(y) < 30 ? 2000 : 1900) : Number(y);
  return day(text, year, Number(m), Number(d));
}

const pad = (n: number, width: number): string => String(n).padStart(width, "0");

function day(text: string, year: number, month: number, date: number): Value {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  if (year < 1 || month < 1 || month > 12 || date < 1 || date > days)
    return { error: `${JSON.stringify(text)} is no day of the calendar` };
  return { value: `${pad(year, 4)}-${pad(month, 2)}-${pad(date, 2)}` };
}

function booleanOf(cell: Cell): Value {
  if (typeof cell === "boolean") return { value: cell };
  const text = textOf(cell).toLowerCase();
  if (["true", "yes", "1"].includes(text)) return { value: true };
  if (["false", "no", "0"].includes(text)) return { value: false };
  return { error: `${JSON.stringify(textOf(cell))} is not true/false, yes/no or 1/0` };
}
