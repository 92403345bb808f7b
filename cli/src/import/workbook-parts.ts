// The parts of a workbook that say how to read a sheet, read from the archive (zip-archive.ts) in
// the order they are needed, wherever they are stored: the package's relationships to the workbook
// part, the workbook's sheet list and date system, its styles (which number format each cell style
// shows: a date, a currency, zeros) and its shared strings (the text of text cells, each once).
import path from "node:path";
import { SharedStringsScanner } from "./sheet-xml.ts";
import { limits, MAX_CELL_FORMATS, UnreadableWorkbook } from "./workbook-limits.ts";
import { attributes, type XmlHandler, XmlTokens } from "./xml-tokens.ts";
import type { ZipArchive, ZipEntry } from "./zip-archive.ts";

export interface SheetEntry {
  name: string;
  hidden: boolean;
  /** The sheet's part in the archive (`xl/worksheets/sheet1.xml`). */
  part: string;
}

export interface WorkbookIndex {
  sheets: SheetEntry[];
  /** Day numbers count from 1904-01-01 (old Mac workbooks), not 1899-12-30. */
  date1904: boolean;
  styles: string | undefined;
  sharedStrings: string | undefined;
}

const RELATIONSHIP = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/";
/** The least XML a cell naming a shared string takes: `<c t="s"><v>0</v></c>`. */
const CELL_BYTES = 21;
/** Sheets and relationships a workbook may list: one part each, so no more than a zip holds. */
const MAX_LISTED = 65_535;

/** Runs a part's XML through a handler. */
async function scanPart(archive: ZipArchive, entry: ZipEntry, handler: XmlHandler): Promise<void> {
  const tokens = new XmlTokens(handler, entry.name);
  const decoder = new TextDecoder("utf-8");
  for await (const chunk of archive.bytes(entry))
    tokens.push(decoder.decode(chunk, { stream: true }));
  tokens.push(decoder.decode());
  tokens.end();
}

/** A handler that only looks at start tags. */
const onOpen = (open: (name: string, attributes: string) => void): XmlHandler => ({
  open,
  close: () => {},
  text: () => {},
  wantsText: false,
});

function need(archive: ZipArchive, part: string, what: string): ZipEntry {
  const entry = archive.entry(part);
  if (!entry) throw new UnreadableWorkbook(`it has no ${what} (${part}); is it an Excel workbook?`);
  return entry;
}

/** A part's relationships: id → the target part's name, and type → the first target of that type. */
async function relationships(
  archive: ZipArchive,
  part: string,
): Promise<{ byId: Map<string, string>; byType: Map<string, string> }> {
  const folder = path.posix.dirname(part);
  const rels = path.posix.join(folder, "_rels", `${path.posix.basename(part)}.rels`);
  const byId = new Map<string, string>();
  const byType = new Map<string, string>();
  const entry = archive.entry(rels);
  if (!entry) return { byId, byType };
  await scanPart(
    archive,
    entry,
    onOpen((name, tag) => {
      if (name !== "Relationship") return;
      const { Id, Type, Target, TargetMode } = attributes(tag);
      if (!Id || !Target || TargetMode === "External") return;
      if (byId.size >= MAX_LISTED) throw new UnreadableWorkbook(`${rels} lists too many parts`);
      const target = Target.startsWith("/")
        ? Target.slice(1)
        : path.posix.normalize(path.posix.join(folder === "." ? "" : folder, Target));
      byId.set(Id, target);
      const type = Type?.startsWith(RELATIONSHIP) ? Type.slice(RELATIONSHIP.length) : Type;
      if (type && !byType.has(type)) byType.set(type, target);
    }),
  );
  return { byId, byType };
}

/** The workbook's sheets, date system and the parts its sheets need. */
export async function readIndex(archive: ZipArchive): Promise<WorkbookIndex> {
  const root = await relationships(archive, "");
  const workbookPart = root.byType.get("officeDocument") ?? "xl/workbook.xml";
  const workbook = need(archive, workbookPart, "workbook part");
  const { byId, byType } = await relationships(archive, workbookPart);
  const sheets: SheetEntry[] = [];
  let date1904 = false;
  await scanPart(
    archive,
    workbook,
    onOpen((name, tag) => {
      if (name === "workbookPr") {
        const flag = attributes(tag).date1904;
        date1904 = flag === "1" || flag === "true";
      } else if (name === "sheet") {
        const { name: sheetName, state, id } = attributes(tag);
        const part = id === undefined ? undefined : byId.get(id);
        if (sheets.length >= MAX_LISTED) throw new UnreadableWorkbook("it lists too many sheets");
        if (sheetName !== undefined && part !== undefined)
          sheets.push({
            name: sheetName,
            hidden: state === "hidden" || state === "veryHidden",
            part,
          });
      }
    }),
  );
  return {
    sheets,
    date1904,
    styles: byType.get("styles"),
    sharedStrings: byType.get("sharedStrings"),
  };
}

/** The number format each cell style (a cell's `s`) shows, by its code; General shows none. */
export async function readStyles(
  archive: ZipArchive,
  part: string | undefined,
): Promise<(string | undefined)[]> {
  const entry = part === undefined ? undefined : archive.entry(part);
  if (!entry) return [];
  const codes = new Map<number, string>();
  const ids: number[] = [];
  let inCellFormats = false;
  await scanPart(archive, entry, {
    open(name, tag, empty) {
      if (name === "numFmt") {
        const { numFmtId, formatCode } = attributes(tag);
        if (codes.size >= MAX_CELL_FORMATS) throw limits.formats();
        if (numFmtId !== undefined && formatCode !== undefined)
          codes.set(Number(numFmtId), formatCode.replace(/\\(.)/g, "$1"));
      } else if (name === "cellXfs") inCellFormats = !empty;
      else if (name === "xf" && inCellFormats) {
        if (ids.length >= MAX_CELL_FORMATS) throw limits.formats();
        ids.push(Number(attributes(tag).numFmtId ?? 0));
      }
    },
    close(name) {
      if (name === "cellXfs") inCellFormats = false;
    },
    text: () => {},
    wantsText: false,
  });
  return ids.map((id) => (id === 0 ? undefined : (codes.get(id) ?? BUILT_IN_FORMATS[id])));
}

/**
 * The workbook's shared strings, as one text per few thousand strings and where each string ends:
 * an array of strings costs some 150 bytes a string beside its text (44 MB for 300,000 strings),
 * this 4 bytes. A rich text's runs are its text, as the import reads it.
 */
export class SharedStrings {
  static readonly #PER_BLOCK = 4096;
  readonly #blocks: string[] = [];
  #pending: string[] = [];
  #ends = new Uint32Array(1024);
  #count = 0;
  #offset = 0;

  /**
   * The part's strings. No sheet can use more strings than it has cells, and a cell that uses one
   * takes at least CELL_BYTES of its sheet's XML: a list longer than the sheets could use (a few
   * kilobytes of `<si/>` unpacking to millions) is refused before its index outgrows the file.
   */
  static async read(
    archive: ZipArchive,
    part: string | undefined,
    sheets: readonly SheetEntry[],
  ): Promise<SharedStrings> {
    const strings = new SharedStrings();
    const entry = part === undefined ? undefined : archive.entry(part);
    if (!entry) return strings;
    const sheetBytes = sheets.reduce(
      (sum, sheet) => sum + (archive.entry(sheet.part)?.size ?? 0),
      0,
    );
    const most = Math.ceil(sheetBytes / CELL_BYTES);
    const scanner = new SharedStringsScanner();
    const decoder = new TextDecoder("utf-8");
    const add = (texts: readonly string[]): void => {
      for (const text of texts) strings.#add(text);
      if (strings.#count > most) throw limits.strings(most);
    };
    for await (const chunk of archive.bytes(entry))
      add(scanner.push(decoder.decode(chunk, { stream: true })));
    add(scanner.push(decoder.decode()));
    add(scanner.end());
    strings.#seal();
    return strings;
  }

  #add(text: string): void {
    if (this.#count === this.#ends.length) {
      const grown = new Uint32Array(this.#ends.length * 2);
      grown.set(this.#ends);
      this.#ends = grown;
    }
    this.#offset += text.length;
    this.#ends[this.#count++] = this.#offset;
    this.#pending.push(text);
    if (this.#pending.length === SharedStrings.#PER_BLOCK) this.#seal();
  }

  #seal(): void {
    if (this.#pending.length === 0) return;
    this.#blocks.push(this.#pending.join(""));
    this.#pending = [];
    this.#offset = 0;
  }

  /** String `index` (a cell naming one the part does not have is empty, as spreadsheet programs read it). */
  at(index: number): string {
    if (!(index >= 0 && index < this.#count)) return "";
    const block = this.#blocks[Math.floor(index / SharedStrings.#PER_BLOCK)]!;
    const first = index % SharedStrings.#PER_BLOCK === 0;
    return block.slice(first ? 0 : this.#ends[index - 1], this.#ends[index]);
  }
}

/** The number formats Excel builds in, by id (the ones every locale shows alike). */
const BUILT_IN_FORMATS: Record<number, string> = {
  1: "0",
  2: "0.00",
  3: "#,##0",
  4: "#,##0.00",
  9: "0%",
  10: "0.00%",
  11: "0.00E+00",
  12: "# ?/?",
  13: "# ??/??",
  14: "mm-dd-yy",
  15: "d-mmm-yy",
  16: "d-mmm",
  17: "mmm-yy",
  18: "h:mm AM/PM",
  19: "h:mm:ss AM/PM",
  20: "h:mm",
  21: "h:mm:ss",
  22: "m/d/yy h:mm",
  37: "#,##0 ;(#,##0)",
  38: "#,##0 ;[Red](#,##0)",
  39: "#,##0.00;(#,##0.00)",
  40: "#,##0.00;[Red](#,##0.00)",
  45: "mm:ss",
  46: "[h]:mm:ss",
  47: "mmss.0",
  48: "##0.0E+0",
  49: "@",
};
