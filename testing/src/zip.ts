// Writes zip archives part by part, for tests that build workbooks by hand (hostile ones included):
// each part's text is deflated as it is generated, so a part that unpacks to 400 MB is written from
// a few hundred kilobytes of memory, in the order given (a sheet before workbook.xml, if asked).
import { closeSync, openSync, writeSync } from "node:fs";
import { constants, crc32, createDeflateRaw } from "node:zlib";

export interface ZipPart {
  name: string;
  /** The part's bytes: text, or text generated piece by piece (for parts too large to hold). */
  content: string | (() => Iterable<string>);
}

const encoder = new TextEncoder();

/** Deflates the pieces; answers the packed bytes, the unpacked size and the CRC-32. */
async function pack(
  pieces: Iterable<string>,
): Promise<{ packed: Buffer; size: number; crc: number }> {
  const deflate = createDeflateRaw({ level: constants.Z_BEST_COMPRESSION });
  const out: Buffer[] = [];
  deflate.on("data", (chunk: Buffer) => out.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    deflate.on("end", resolve);
    deflate.on("error", reject);
  });
  let size = 0;
  let crc = 0;
  for (const piece of pieces) {
    const bytes = encoder.encode(piece);
    size += bytes.length;
    crc = crc32(bytes, crc);
    if (!deflate.write(bytes)) await new Promise((resolve) => deflate.once("drain", resolve));
  }
  deflate.end();
  await ended;
  return { packed: Buffer.concat(out), size, crc };
}

/** A zip record of `length` bytes with these little-endian fields: [offset, value, bytes]. */
function record(length: number, fields: [number, number, number][]): Buffer {
  const bytes = Buffer.alloc(length);
  for (const [at, value, width] of fields)
    if (width === 4) bytes.writeUInt32LE(value, at);
    else bytes.writeUInt16LE(value, at);
  return bytes;
}

/** Writes the parts, in order, as a zip file at `file`; `cut` bytes are left off its end (a file cut short). */
export async function writeZip(file: string, parts: ZipPart[], { cut = 0 } = {}): Promise<void> {
  const chunks: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const pieces = typeof part.content === "string" ? [part.content] : part.content();
    const { packed, size, crc } = await pack(pieces);
    const name = Buffer.from(part.name);
    // The fields a local header and a directory entry share, at their offsets in each.
    const shared = (at: number): [number, number, number][] => [
      [at, 8, 2],
      [at + 6, crc >>> 0, 4],
      [at + 10, packed.length, 4],
      [at + 14, size, 4],
      [at + 18, name.length, 2],
    ];
    const local = record(30, [[0, 0x04034b50, 4], [4, 20, 2], ...shared(8)]);
    const central = record(46, [
      [0, 0x02014b50, 4],
      [4, 20, 2],
      [6, 20, 2],
      ...shared(10),
      [42, offset, 4],
    ]);
    chunks.push(local, name, packed);
    directory.push(central, name);
    offset += local.length + name.length + packed.length;
  }
  const size = directory.reduce((sum, chunk) => sum + chunk.length, 0);
  const end = record(22, [
    [0, 0x06054b50, 4],
    [8, parts.length, 2],
    [10, parts.length, 2],
    [12, size, 4],
    [16, offset, 4],
  ]);
  const whole = Buffer.concat([...chunks, ...directory, end]);
  const fd = openSync(file, "w");
  try {
    writeSync(fd, whole, 0, whole.length - cut);
  } finally {
    closeSync(fd);
  }
}

const MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const RELS = "http://schemas.openxmlformats.org/package/2006/relationships";
const OFFICE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const TYPES = "http://schemas.openxmlformats.org/package/2006/content-types";
const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/** A relationships part listing `[id, type, target]`. */
const relationships = (list: [string, string, string][]): string =>
  `${DECLARATION}<Relationships xmlns="${RELS}">` +
  list
    .map(
      ([id, type, target]) =>
        `<Relationship Id="${id}" Type="${OFFICE}/${type}" Target="${target}"/>`,
    )
    .join("") +
  "</Relationships>";

/**
 * The parts of a one-sheet workbook around the sheet's XML (and the shared strings', if given), in
 * the order Excel stores them, or with the sheet first as streaming writers store it.
 */
export function workbookParts(
  sheet: ZipPart["content"],
  {
    sharedStrings,
    sheetFirst = false,
  }: { sharedStrings?: ZipPart["content"]; sheetFirst?: boolean } = {},
): ZipPart[] {
  const index: ZipPart[] = [
    {
      name: "[Content_Types].xml",
      content:
        `${DECLARATION}<Types xmlns="${TYPES}">` +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/></Types>',
    },
    {
      name: "_rels/.rels",
      content: relationships([["rId1", "officeDocument", "xl/workbook.xml"]]),
    },
    {
      name: "xl/workbook.xml",
      content:
        `${DECLARATION}<workbook xmlns="${MAIN}" xmlns:r="${OFFICE}">` +
        '<sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
    },
    {
      name: "xl/_rels/workbook.xml.rels",
      content: relationships([
        ["rId1", "worksheet", "worksheets/sheet1.xml"],
        ...(sharedStrings === undefined
          ? []
          : [["rId2", "sharedStrings", "sharedStrings.xml"] as [string, string, string]]),
      ]),
    },
  ];
  const sheetPart = { name: "xl/worksheets/sheet1.xml", content: sheet };
  const stringsPart =
    sharedStrings === undefined ? [] : [{ name: "xl/sharedStrings.xml", content: sharedStrings }];
  return sheetFirst ? [sheetPart, ...index, ...stringsPart] : [...index, ...stringsPart, sheetPart];
}

/** A worksheet's XML around rows written as they are. */
export const sheetXml = (rows: string): string =>
  `${DECLARATION}<worksheet xmlns="${MAIN}"><sheetData>${rows}</sheetData></worksheet>`;
