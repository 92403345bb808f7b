// Reads the parts of a zip archive (an .xlsx file) by their names, from its central directory, each
// part unpacked as a stream and counted as it comes: one that unpacks past its bound stops at that
// byte (workbook-limits.ts). Read in any order, a part stored before the one that says how to read it
// (a sheet before workbook.xml, as streaming writers store it) is simply read later: nothing is set
// aside, in memory or in a temporary file.
import { read as readAt } from "node:fs";
import { promisify } from "node:util";
import { limits, partBound, UnreadableWorkbook } from "./workbook-limits.ts";

const pread = promisify(readAt);

const END_OF_DIRECTORY = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END = 0x06064b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
/** The end record and the longest comment a zip may carry after it. */
const TAIL_BYTES = 22 + 0xffff;
/** A directory larger than this lists far more parts than any workbook has. */
const MAX_DIRECTORY_BYTES = 64 * 1024 ** 2;
const CHUNK_BYTES = 256 * 1024;

export interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

export class ZipArchive {
  readonly #entries: Map<string, ZipEntry>;

  private constructor(
    readonly fd: number,
    readonly fileSize: number,
    entries: Map<string, ZipEntry>,
  ) {
    this.#entries = entries;
  }

  /** The archive in the open file `fd` of `fileSize` bytes; unreadable when it has no (whole) directory. */
  static async open(fd: number, fileSize: number): Promise<ZipArchive> {
    const tailStart = Math.max(0, fileSize - TAIL_BYTES);
    const tail = await bytesAt(fd, tailStart, fileSize - tailStart);
    const end = lastSignature(tail, END_OF_DIRECTORY);
    if (end < 0)
      throw new UnreadableWorkbook(
        "its zip directory is missing (the file is cut short, or it is no zip archive)",
      );
    const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
    let count = view.getUint16(end + 10, true);
    let size = view.getUint32(end + 12, true);
    let offset = view.getUint32(end + 16, true);
    if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) {
      const zip64 = await zip64End(fd, tailStart + end);
      ({ count, size, offset } = zip64);
    }
    if (size > MAX_DIRECTORY_BYTES || offset + size > fileSize)
      throw new UnreadableWorkbook("its zip directory lies outside the file");
    const directory = await bytesAt(fd, offset, size);
    return new ZipArchive(fd, fileSize, readDirectory(directory, count));
  }

  /** The part of that name (OPC names ignore case), if the archive has it. */
  entry(name: string): ZipEntry | undefined {
    return this.#entries.get(name.replace(/^\//, "").toLowerCase());
  }

  /** Bytes of the file read so far for parts, for the progress bar. */
  consumed = 0;

  /** The part's unpacked bytes, chunk by chunk, refused once past the bound (or its declared size). */
  async *bytes(entry: ZipEntry): AsyncGenerator<Uint8Array> {
    if (entry.flags & 1)
      throw new UnreadableWorkbook(
        `its part ${entry.name} is encrypted (save it without a password)`,
      );
    if (entry.method !== 0 && entry.method !== 8)
      throw new UnreadableWorkbook(
        `its part ${entry.name} is packed with method ${entry.method}, which zip readers rarely know`,
      );
    const bound = partBound(this.fileSize);
    if (entry.size > bound.bytes) throw limits.part(entry.name, bound.bytes, bound.why);
    const header = await bytesAt(this.fd, entry.localOffset, 30);
    const view = new DataView(header.buffer, header.byteOffset, 30);
    if (header.length < 30 || view.getUint32(0, true) !== LOCAL_HEADER)
      throw new UnreadableWorkbook(`its part ${entry.name} is not where its directory says`);
    const start = entry.localOffset + 30 + view.getUint16(26, true) + view.getUint16(28, true);
    if (start + entry.compressedSize > this.fileSize)
      throw new UnreadableWorkbook(`its part ${entry.name} runs past the end of the file`);
    const packed = this.#packed(start, entry.compressedSize);
    let unpacked = 0;
    try {
      for await (const chunk of entry.method === 8 ? inflate(packed) : packed) {
        unpacked += chunk.length;
        if (unpacked > bound.bytes) throw limits.part(entry.name, bound.bytes, bound.why);
        if (unpacked > entry.size) break;
        yield chunk;
      }
    } catch (error) {
      if (error instanceof UnreadableWorkbook || !(error instanceof TypeError || isZlib(error)))
        throw error;
      throw new UnreadableWorkbook(`its part ${entry.name} is damaged (${error.message})`);
    }
    if (unpacked !== entry.size)
      throw new UnreadableWorkbook(
        `its part ${entry.name} unpacks to ${unpacked} bytes where its directory says ${entry.size}`,
      );
  }

  async *#packed(start: number, length: number): AsyncGenerator<Uint8Array<ArrayBuffer>> {
    for (let at = 0; at < length; at += CHUNK_BYTES) {
      const chunk = await bytesAt(this.fd, start + at, Math.min(CHUNK_BYTES, length - at));
      this.consumed += chunk.length;
      yield chunk;
    }
  }
}

const isZlib = (error: unknown): error is Error =>
  error instanceof Error && typeof (error as { code?: unknown }).code === "string";

/** Deflate's raw stream unpacked, as the platform's own decompressor does it. */
async function* inflate(
  packed: AsyncGenerator<Uint8Array<ArrayBuffer>>,
): AsyncGenerator<Uint8Array> {
  const source = new ReadableStream<BufferSource>({
    async pull(controller) {
      const next = await packed.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: () => void packed.return(undefined),
  });
  const reader = source.pipeThrough(new DecompressionStream("deflate-raw")).getReader();
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // Left early (a bound passed, the import stopped): the file is read no further.
    await reader.cancel().catch(() => {});
  }
}

async function bytesAt(
  fd: number,
  position: number,
  length: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await pread(fd, buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

function lastSignature(bytes: Uint8Array, signature: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = bytes.length - 22; at >= 0; at--)
    if (view.getUint32(at, true) === signature) return at;
  return -1;
}

async function zip64End(
  fd: number,
  endAt: number,
): Promise<{ count: number; size: number; offset: number }> {
  const locator = await bytesAt(fd, endAt - 20, 20);
  const view = new DataView(locator.buffer, locator.byteOffset, locator.byteLength);
  if (locator.length < 20 || view.getUint32(0, true) !== ZIP64_LOCATOR)
    throw new UnreadableWorkbook("its zip64 directory is missing");
  const record = await bytesAt(fd, Number(view.getBigUint64(8, true)), 56);
  const end = new DataView(record.buffer, record.byteOffset, record.byteLength);
  if (record.length < 56 || end.getUint32(0, true) !== ZIP64_END)
    throw new UnreadableWorkbook("its zip64 directory is damaged");
  return {
    count: safe(end.getBigUint64(32, true)),
    size: safe(end.getBigUint64(40, true)),
    offset: safe(end.getBigUint64(48, true)),
  };
}

const safe = (value: bigint): number => (value > 2n ** 52n ? 2 ** 52 : Number(value));

const decoder = new TextDecoder("utf-8");

function readDirectory(directory: Uint8Array, count: number): Map<string, ZipEntry> {
  const view = new DataView(directory.buffer, directory.byteOffset, directory.byteLength);
  const entries = new Map<string, ZipEntry>();
  let at = 0;
  for (let index = 0; index < count; index++) {
    if (at + 46 > directory.length || view.getUint32(at, true) !== DIRECTORY_ENTRY)
      throw new UnreadableWorkbook("its zip directory is damaged");
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const name = decoder.decode(directory.subarray(at + 46, at + 46 + nameLength));
    const entry: ZipEntry = {
      name,
      flags: view.getUint16(at + 8, true),
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      localOffset: view.getUint32(at + 42, true),
    };
    readZip64Sizes(entry, view, at + 46 + nameLength, extraLength);
    entries.set(name.replace(/^\//, "").toLowerCase(), entry);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** A zip64 entry's real sizes and offset, in its extra field, for those its record marks 0xFFFFFFFF. */
function readZip64Sizes(entry: ZipEntry, view: DataView, start: number, length: number): void {
  const end = Math.min(start + length, view.byteLength);
  for (let at = start; at + 4 <= end; ) {
    const id = view.getUint16(at, true);
    const size = view.getUint16(at + 2, true);
    if (id === 1) {
      let field = at + 4;
      const next = (): number => {
        const value = field + 8 <= end ? safe(view.getBigUint64(field, true)) : 0;
        field += 8;
        return value;
      };
      if (entry.size === 0xffffffff) entry.size = next();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next();
      if (entry.localOffset === 0xffffffff) entry.localOffset = next();
      return;
    }
    at += 4 + size;
  }
}
