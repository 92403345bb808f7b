// Reads an import file (or stdin) as a stream of rows: CSV rows keep their cells as written (the
// header is read first, so it can be checked before anything is sent), NDJSON rows their object.
// A workbook's rows come from xlsx-source.ts with typed cells; other binary files are refused.
import { createReadStream, statSync } from "node:fs";
import path from "node:path";
import { UsageError } from "../usage-error.ts";
import { unescapeFormula } from "../formula-escape.ts";
import { CsvParser, type CsvRecord, type Delimiter, delimiterOf } from "./csv-parser.ts";
import { peek, settleKind } from "./sniff.ts";
import type { ImportFormat, ImportSource, Row } from "./source.ts";
import { openWorkbook } from "./xlsx-source.ts";

export { IMPORT_FORMATS, type ImportFormat, type ImportSource, type Row } from "./source.ts";

const EXTENSIONS: Record<string, ImportFormat> = {
  ".csv": "csv",
  ".ndjson": "ndjson",
  ".jsonl": "ndjson",
  ".xlsx": "xlsx",
};

export interface SourceOptions {
  /** A workbook's sheet (--sheet). */
  sheet?: string | undefined;
  /** Keep a workbook's cells as typed, for a workbook of rejects. */
  typed?: boolean;
  /** A CSV's delimiter (--delimiter); else the header line's. */
  delimiter?: Delimiter | undefined;
  /** What `-` reads. */
  stdin?: AsyncIterable<Uint8Array | string>;
}

/**
 * Opens `file` (`-` is stdin) and settles its format: --format, else the extension, else the first
 * bytes (a zip is a workbook, `{` starts NDJSON).
 */
export async function openSource(
  file: string,
  format: ImportFormat | undefined,
  { sheet, typed = false, delimiter, stdin = process.stdin }: SourceOptions = {},
): Promise<ImportSource> {
  let totalSize: number | undefined;
  if (file !== "-") {
    try {
      const stat = statSync(file);
      if (!stat.isFile()) throw new UsageError(`${file} is not a file`);
      totalSize = stat.size;
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
    }
  }
  const stream = file === "-" ? stdin : createReadStream(file);
  const chosen =
    format ?? (file === "-" ? undefined : EXTENSIONS[path.extname(file).toLowerCase()]);
  const name = file === "-" ? "stdin" : file;
  const { head, bytes } = await peek(stream);
  if (settleKind(name, head, chosen) === "workbook")
    return openWorkbook(bytes, {
      name,
      sheet,
      totalSize,
      typed,
      file: file === "-" ? undefined : file,
    });
  const chunks = decode(bytes);
  const { format: settled, chunks: all } = chosen
    ? { format: chosen, chunks }
    : await sniff(chunks);
  if (settled === "ndjson") {
    const blank = { lines: 0 };
    return {
      format: settled,
      header: undefined,
      totalSize,
      overhead: 0,
      bom: false,
      blankLines: () => blank.lines,
      rows: ndjsonRows(all, blank),
    };
  }
  const firstLine = await headerLine(all);
  const parser = new CsvParser(delimiter ?? delimiterOf(firstLine.text));
  const records = csvRecords(parser, firstLine.chunks);
  const first = await records.next();
  if (first.done)
    throw new UsageError("the CSV file is empty: it needs a header line naming the fields");
  return {
    format: settled,
    header: checkHeader(first.value),
    totalSize,
    overhead: first.value.size,
    bom: parser.bom,
    delimiter: parser.delimiter,
    blankLines: () => parser.blankLines,
    rows: csvRows(records, first.value.fields.length),
  };
}

async function* decode(stream: AsyncIterable<Uint8Array | string>): AsyncGenerator<string> {
  // The BOM is kept for the parser to note (a rejects file then starts with one too).
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  for await (const chunk of stream)
    yield typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
  const rest = decoder.decode();
  if (rest) yield rest;
}

/** NDJSON when the first non-blank character is `{`, CSV otherwise; the peeked text is not lost. */
async function sniff(
  chunks: AsyncGenerator<string>,
): Promise<{ format: ImportFormat; chunks: AsyncGenerator<string> }> {
  const peeked = await peekText(chunks, (text) => text.replace(/^\uFEFF/, "").trimStart() !== "");
  const first = peeked.text.replace(/^\uFEFF/, "").trimStart();
  return { format: first.startsWith("{") ? "ndjson" : "csv", chunks: peeked.chunks };
}

/** The header line's text (to tell its delimiter; its first 64 chunks at most) and all the chunks again. */
async function headerLine(
  chunks: AsyncGenerator<string>,
): Promise<{ text: string; chunks: AsyncGenerator<string> }> {
  const peeked = await peekText(chunks, (text, count) => /[\r\n]/.test(text) || count > 64);
  return { text: peeked.text.replace(/^\uFEFF/, ""), chunks: peeked.chunks };
}

/** The chunks read until `enough` says so (by the last one, and how many), and all of them again. */
async function peekText(
  chunks: AsyncGenerator<string>,
  enough: (last: string, count: number) => boolean,
): Promise<{ text: string; chunks: AsyncGenerator<string> }> {
  const peeked: string[] = [];
  for (;;) {
    // Read with next(), not for-await: leaving a for-await loop would close the generator.
    const next = await chunks.next();
    if (next.done) break;
    peeked.push(next.value);
    if (enough(next.value, peeked.length)) break;
  }
  async function* replay(): AsyncGenerator<string> {
    yield* peeked;
    yield* chunks;
  }
  return { text: peeked.join(""), chunks: replay() };
}

async function* csvRecords(
  parser: CsvParser,
  chunks: AsyncIterable<string>,
): AsyncGenerator<CsvRecord> {
  for await (const chunk of chunks) yield* parser.push(chunk);
  yield* parser.end();
}

function checkHeader(record: CsvRecord): string[] {
  if (record.error) throw new UsageError(`the CSV header is malformed: ${record.error}`);
  const blank = record.fields.findIndex((field) => field.trim() === "");
  if (blank >= 0) throw new UsageError(`the CSV header's column ${blank + 1} has no name`);
  return record.fields;
}

async function* csvRows(records: AsyncGenerator<CsvRecord>, width: number): AsyncGenerator<Row> {
  let row = 0;
  for await (const record of records) {
    row += 1;
    const at = { row, line: record.line, size: record.size };
    if (record.error) yield { ...at, error: record.error };
    else if (record.fields.length !== width && record.fields.some((cell) => cell.trim() !== "")) {
      yield { ...at, error: `has ${record.fields.length} cells where the header has ${width}` };
    } else yield { ...at, cells: record.fields.map(unescapeFormula) };
  }
}

async function* ndjsonRows(
  chunks: AsyncIterable<string>,
  blank: { lines: number },
): AsyncGenerator<Row> {
  let pending = "";
  let line = 0;
  let row = 0;
  const toRow = (text: string): Row | undefined => {
    line += 1;
    if (line === 1) text = text.replace(/^\uFEFF/, "");
    if (text.trim() === "") {
      blank.lines++;
      return undefined;
    }
    row += 1;
    const at = { row, line, size: text.length + 1 };
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return { ...at, error: `not valid JSON: ${(error as Error).message}` };
    }
    if (value === null || typeof value !== "object" || Array.isArray(value))
      return { ...at, error: "not a JSON object" };
    return { ...at, object: value as Record<string, unknown> };
  };
  for await (const chunk of chunks) {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop() ?? "";
    for (const text of lines) {
      const next = toRow(text.replace(/\r$/, ""));
      if (next) yield next;
    }
  }
  const last = pending.length > 0 ? toRow(pending) : undefined;
  if (last) yield last;
}
