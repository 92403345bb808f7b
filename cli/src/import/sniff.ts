// What an import file is, from its first bytes: an Excel workbook (a zip archive), a text file (CSV
// or NDJSON), or something else that no import reads (a PDF, an image, an old .xls). Text decoders
// read any bytes, so without this a binary file became garbage rows or a header of junk columns.
import { UsageError } from "../usage-error.ts";

/** The formats `erp import` reads, for the sentence that refuses anything else. */
export const FORMATS_READ = "erp import reads CSV, NDJSON and XLSX (Excel) files";

/** The zip signature every .xlsx file starts with. */
const ZIP = [0x50, 0x4b, 0x03, 0x04];

/** Binary files people pick by mistake, by their signature, with what to do instead where there is something. */
const SIGNATURES: { bytes: number[]; is: string; hint?: string }[] = [
  { bytes: [0x25, 0x50, 0x44, 0x46], is: "a PDF document" },
  { bytes: [0x89, 0x50, 0x4e, 0x47], is: "a PNG image" },
  { bytes: [0xff, 0xd8, 0xff], is: "a JPEG image" },
  { bytes: [0x47, 0x49, 0x46, 0x38], is: "a GIF image" },
  { bytes: [0x1f, 0x8b], is: "a gzip archive", hint: "unpack it first" },
  {
    bytes: [0xd0, 0xcf, 0x11, 0xe0],
    is: "an Excel 97-2003 workbook (.xls) or another old Office file",
    hint: "save it as .xlsx or CSV UTF-8",
  },
  {
    bytes: [0xff, 0xfe],
    is: 'UTF-16 text (Excel\'s "Unicode Text")',
    hint: "save it as CSV UTF-8",
  },
  { bytes: [0xfe, 0xff], is: "UTF-16 text", hint: "save it as CSV UTF-8" },
];

const startsWith = (head: Uint8Array, bytes: readonly number[]): boolean =>
  head.length >= bytes.length && bytes.every((byte, at) => head[at] === byte);

export const isZip = (head: Uint8Array): boolean => startsWith(head, ZIP);

/** What the bytes are when no import reads them; undefined for text (and for a zip, which may be a workbook). */
export function binaryKind(head: Uint8Array): { is: string; hint?: string } | undefined {
  const known = SIGNATURES.find((signature) => startsWith(head, signature.bytes));
  if (known) return known;
  // Text in any 8-bit encoding has no NUL byte; nearly every binary format has some early on.
  if (!isZip(head) && head.subarray(0, 8192).includes(0)) return { is: "a binary file" };
  return undefined;
}

/** The refusal of a file whose bytes no import reads, before anything is sent. */
export function refuseBinary(name: string, kind: { is: string; hint?: string }): UsageError {
  return new UsageError(
    `${name} is ${kind.is}, not a spreadsheet: ${FORMATS_READ}${kind.hint ? `; ${kind.hint}` : ""}.`,
  );
}

/** The refusal of a workbook where --format or the file's extension asks for text. */
export function refuseWorkbookAsText(name: string, format: string): UsageError {
  return new UsageError(
    `${name} is an Excel workbook (a zip archive), not ${format.toUpperCase()}: ` +
      `rename it to .xlsx or add --format xlsx (${FORMATS_READ}).`,
  );
}

/** The longest signature looked for; the first chunk read (a file's is 64 KiB) is usually far more. */
const SIGNATURE_BYTES = 8;

/** The first chunk of a stream, and the whole stream again (those bytes included) to read on from. */
export async function peek(
  stream: AsyncIterable<Uint8Array | string>,
): Promise<{ head: Uint8Array; bytes: AsyncGenerator<Uint8Array> }> {
  const iterator = stream[Symbol.asyncIterator]();
  const peeked: Uint8Array[] = [];
  let length = 0;
  let done = false;
  // Only as much as the first chunk, so rows piped in slowly (a script feeding stdin) are not held back.
  while (length < SIGNATURE_BYTES) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    const chunk = typeof next.value === "string" ? Buffer.from(next.value) : next.value;
    peeked.push(chunk);
    length += chunk.length;
  }
  async function* replay(): AsyncGenerator<Uint8Array> {
    yield* peeked;
    if (done) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield typeof next.value === "string" ? Buffer.from(next.value) : next.value;
    }
  }
  return { head: Buffer.concat(peeked), bytes: replay() };
}

/**
 * Whether the file is read as a workbook or as text, from its first bytes and the format asked for
 * (--format, else the extension): a workbook is read as one wherever no text format was asked for;
 * anything else binary is refused.
 */
export function settleKind(
  name: string,
  head: Uint8Array,
  asked: string | undefined,
): "workbook" | "text" {
  if (isZip(head)) {
    if (asked === undefined || asked === "xlsx") return "workbook";
    throw refuseWorkbookAsText(name, asked);
  }
  const kind = binaryKind(head);
  if (kind) throw refuseBinary(name, kind);
  if (asked === "xlsx")
    throw new UsageError(
      `${name} is not an Excel workbook (an .xlsx file is a zip archive; this one is text): ` +
        `give it its own extension or --format csv|ndjson (${FORMATS_READ}).`,
    );
  return "text";
}
