// Scans a workbook's XML chunk by chunk: a worksheet's (xl/worksheets/sheetN.xml) for its rows and
// cells, the shared strings' part (xl/sharedStrings.xml) for their texts. The workbook library
// (xlsx-source.ts) unzips the file and reads the styles and sheet list; the cells and strings are
// scanned here, because the library's SAX parser and its objects cost several times what the rest
// of an import does (docs/cli.md has the measurements).

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

const ROW_START = /<(?:[A-Za-z_][\w.-]*:)?row(?=[\s>/])/g;
const ROW_END = /<\/(?:[A-Za-z_][\w.-]*:)?row\s*>/g;
const CELL =
  /<(?:[A-Za-z_][\w.-]*:)?c(?=[\s>/])([^>]*?)(\/>|>([\s\S]*?)<\/(?:[A-Za-z_][\w.-]*:)?c\s*>)/g;
const ATTRIBUTE = /([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
/** The attributes as spreadsheet programs write them, in this order, plain: one match for all three. */
const USUAL_ATTRIBUTES = /^\s*r="([A-Za-z$]+[$\d]+)"(?:\s+s="(\d+)")?(?:\s+t="([a-zA-Z]+)")?\s*$/;
const SHARED_STRING =
  /<(?:[A-Za-z_][\w.-]*:)?si(?:\s[^>]*)?>([\s\S]*?)<\/(?:[A-Za-z_][\w.-]*:)?si\s*>|<(?:[A-Za-z_][\w.-]*:)?si\s*\/>/g;
const VALUE = /<(?:[A-Za-z_][\w.-]*:)?v(?:\s[^>]*)?>([\s\S]*?)<\/(?:[A-Za-z_][\w.-]*:)?v\s*>/;
const FORMULA = /<(?:[A-Za-z_][\w.-]*:)?f(?=[\s>/])/;
const INLINE = /<(?:[A-Za-z_][\w.-]*:)?is(?:\s[^>]*)?>([\s\S]*?)<\/(?:[A-Za-z_][\w.-]*:)?is\s*>/;
const TEXT_RUN =
  /<(?:[A-Za-z_][\w.-]*:)?t(?:\s[^>]*)?>([\s\S]*?)<\/(?:[A-Za-z_][\w.-]*:)?t\s*>|<(?:[A-Za-z_][\w.-]*:)?t\s*\/>/g;
/** Phonetic runs (furigana) in an inline string are not part of its text. */
const PHONETIC = /<(?:[A-Za-z_][\w.-]*:)?rPh(?:\s[^>]*)?>[\s\S]*?<\/(?:[A-Za-z_][\w.-]*:)?rPh\s*>/g;

export class SheetXmlScanner {
  #pending = "";
  #lastRow = 0;

  /** The rows a chunk completes; a row cut by the chunk's end waits for the next one. */
  push(chunk: string): ScannedRow[] {
    const text = this.#pending + chunk;
    const rows: ScannedRow[] = [];
    let at = 0;
    for (;;) {
      ROW_START.lastIndex = at;
      const start = ROW_START.exec(text);
      if (!start) {
        // Keep a tail that may be the start of a row tag cut in two.
        at = Math.max(at, text.length - 32);
        break;
      }
      const tagEnd = text.indexOf(">", start.index);
      if (tagEnd < 0) {
        at = start.index;
        break;
      }
      const attributes = text.slice(start.index + start[0].length, tagEnd);
      if (text.charCodeAt(tagEnd - 1) === 47) {
        // <row r="5"/>: a row with nothing in it.
        at = tagEnd + 1;
        this.#row(attributes);
        continue;
      }
      ROW_END.lastIndex = tagEnd + 1;
      const end = ROW_END.exec(text);
      if (!end) {
        at = start.index;
        break;
      }
      rows.push({
        number: this.#row(attributes),
        cells: cellsOf(text.slice(tagEnd + 1, end.index)),
      });
      at = end.index + end[0].length;
    }
    this.#pending = text.slice(at);
    return rows;
  }

  /** The row's number: its `r`, else the one after the last. */
  #row(attributes: string): number {
    const { r } = attributesOf(attributes);
    this.#lastRow = r === undefined ? this.#lastRow + 1 : Number(r);
    return this.#lastRow;
  }
}

/** The shared strings' texts in their order, as a chunk completes them (a string's runs, as inline strings'). */
export class SharedStringsScanner {
  #pending = "";

  push(chunk: string): string[] {
    const text = this.#pending + chunk;
    const strings: string[] = [];
    let at = 0;
    SHARED_STRING.lastIndex = 0;
    for (let match = SHARED_STRING.exec(text); match; match = SHARED_STRING.exec(text)) {
      strings.push(match[1] === undefined ? "" : runsOf(match[1]));
      at = SHARED_STRING.lastIndex;
    }
    this.#pending = text.slice(at);
    return strings;
  }
}

function cellsOf(xml: string): ScannedCell[] {
  const cells: ScannedCell[] = [];
  let column = 0;
  CELL.lastIndex = 0;
  for (let match = CELL.exec(xml); match; match = CELL.exec(xml)) {
    const { r: reference, s: style, t: type } = attributesOf(match[1] ?? "");
    column = reference === undefined ? column + 1 : columnOf(reference);
    const body = match[3] ?? "";
    let value: string | undefined;
    if (type === "inlineStr") {
      const inline = INLINE.exec(body);
      value = inline ? runsOf(inline[1] ?? "") : undefined;
    } else {
      const v = VALUE.exec(body);
      value = v ? decodeXml(v[1] ?? "") : undefined;
    }
    cells.push({
      column,
      type,
      style: style === undefined ? undefined : Number(style),
      value,
      formula: FORMULA.test(body),
    });
  }
  return cells;
}

/** An inline or shared string's text: its `<t>` runs, without phonetic runs. */
function runsOf(xml: string): string {
  let text = "";
  TEXT_RUN.lastIndex = 0;
  const plain = xml.replace(PHONETIC, "");
  for (let match = TEXT_RUN.exec(plain); match; match = TEXT_RUN.exec(plain))
    text += decodeXml(match[1] ?? "");
  return decodeEscapes(text);
}

/**
 * The reference (`r`), style (`s`) and type (`t`) attributes of a row's or cell's tag, read in one
 * pass (a pass per attribute was a fifth of a workbook's parsing); a cell's tag as spreadsheet
 * programs write it, in one match.
 */
function attributesOf(tag: string): { r?: string; s?: string; t?: string } {
  const usual = USUAL_ATTRIBUTES.exec(tag);
  if (usual) return { r: usual[1], s: usual[2], t: usual[3] };
  const found: { r?: string; s?: string; t?: string } = {};
  ATTRIBUTE.lastIndex = 0;
  for (let match = ATTRIBUTE.exec(tag); match; match = ATTRIBUTE.exec(tag)) {
    const name = match[1];
    if (name === "r" || name === "s" || name === "t")
      found[name] ??= decodeXml(match[2] ?? match[3] ?? "");
  }
  return found;
}

/** `B12` → 2, `AA3` → 27 (a `$` is allowed). */
function columnOf(reference: string): number {
  let column = 0;
  for (let at = 0; at < reference.length; at++) {
    const code = reference.charCodeAt(at);
    if (code >= 65 && code <= 90) column = column * 26 + code - 64;
    else if (code >= 97 && code <= 122) column = column * 26 + code - 96;
    else if (code !== 36) break;
  }
  return column;
}

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

function decodeXml(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|lt|gt|amp|quot|apos);/g, (whole, entity: string) => {
    if (entity.startsWith("#x")) return String.fromCodePoint(Number.parseInt(entity.slice(2), 16));
    if (entity.startsWith("#")) return String.fromCodePoint(Number(entity.slice(1)));
    return ENTITIES[entity] ?? whole;
  });
}

/** OOXML's `_xHHHH_` escapes (characters XML cannot hold, such as control characters). */
function decodeEscapes(text: string): string {
  if (!text.includes("_x")) return text;
  return text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}
