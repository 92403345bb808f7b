// Reads an import file (or stdin) as a stream of rows, each already turned into the JSON body to send.
import { createReadStream, statSync } from "node:fs";
import path from "node:path";
import { coerce } from "../body.ts";
import { UsageError } from "../usage-error.ts";
import { CsvParser } from "./csv-parser.ts";

export const IMPORT_FORMATS = ["csv", "ndjson"] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** One data row: its body, or why it cannot be sent. */
export interface Row {
  /** 1-based data row: the CSV header and blank lines are not counted. */
  row: number;
  /** 1-based line where the row starts in the file. */
  line: number;
  /** Characters the row took in the file, for progress. */
  size: number;
  body?: Record<string, unknown>;
  error?: string;
}

export interface ImportSource {
  format: ImportFormat;
  /** Bytes to read, when known (a file, not stdin). */
  totalSize: number | undefined;
  /** Characters taken by what is not a row (the CSV header), for progress. */
  overhead(): number;
  rows: AsyncIterable<Row>;
}

const EXTENSIONS: Record<string, ImportFormat> = { ".csv": "csv", ".ndjson": "ndjson", ".jsonl": "ndjson" };

/** Opens `file` (`-` is stdin) and settles its format: --format, else the extension, else the first character. */
export async function openSource(file: string, format: ImportFormat | undefined): Promise<ImportSource> {
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
  const stream = file === "-" ? process.stdin : createReadStream(file);
  const chunks = decode(stream);
  const chosen = format ?? (file === "-" ? undefined : EXTENSIONS[path.extname(file).toLowerCase()]);
  const { format: settled, chunks: all } = chosen ? { format: chosen, chunks } : await sniff(chunks);
  let overhead = 0;
  const rows = settled === "csv" ? csvRows(all, (size) => (overhead += size)) : ndjsonRows(all);
  return { format: settled, totalSize, overhead: () => overhead, rows };
}

async function* decode(stream: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8");
  for await (const chunk of stream) yield typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
  const rest = decoder.decode();
  if (rest) yield rest;
}

/** NDJSON when the first non-blank character is `{`, CSV otherwise; the peeked text is not lost. */
async function sniff(chunks: AsyncGenerator<string>): Promise<{ format: ImportFormat; chunks: AsyncGenerator<string> }> {
  const peeked: string[] = [];
  let format: ImportFormat = "csv";
  for await (const chunk of chunks) {
    peeked.push(chunk);
    const first = chunk.replace(/^\uFEFF/, "").trimStart();
    if (first) {
      format = first.startsWith("{") ? "ndjson" : "csv";
      break;
    }
  }
  async function* replay(): AsyncGenerator<string> {
    yield* peeked;
    yield* chunks;
  }
  return { format, chunks: replay() };
}

async function* csvRows(chunks: AsyncIterable<string>, onHeader: (size: number) => void): AsyncGenerator<Row> {
  const parser = new CsvParser();
  let header: string[] | undefined;
  let row = 0;
  const toRow = (record: ReturnType<CsvParser["end"]>[number]): Row | undefined => {
    if (header === undefined) {
      header = checkHeader(record.fields, record.error);
      onHeader(record.size);
      return undefined;
    }
    row += 1;
    const at = { row, line: record.line, size: record.size };
    if (record.error) return { ...at, error: record.error };
    if (record.fields.length !== header.length) {
      return { ...at, error: `has ${record.fields.length} fields where the header has ${header.length}` };
    }
    const body: Record<string, unknown> = {};
    header.forEach((column, i) => {
      const value = record.fields[i] ?? "";
      // An empty cell means "not given": the API applies its default, or leaves the field null.
      if (value !== "") body[column] = coerce(column, value);
    });
    return { ...at, body };
  };
  for await (const chunk of chunks) {
    for (const record of parser.push(chunk)) {
      const next = toRow(record);
      if (next) yield next;
    }
  }
  for (const record of parser.end()) {
    const next = toRow(record);
    if (next) yield next;
  }
  if (header === undefined) throw new UsageError("the CSV file is empty: it needs a header line naming the fields");
}

function checkHeader(fields: string[], error: string | undefined): string[] {
  if (error) throw new UsageError(`the CSV header is malformed: ${error}`);
  const names = fields.map((field) => field.trim());
  const blank = names.findIndex((name) => name === "");
  if (blank >= 0) throw new UsageError(`the CSV header's column ${blank + 1} has no name`);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice) throw new UsageError(`the CSV header names ${twice} twice`);
  return names;
}

async function* ndjsonRows(chunks: AsyncIterable<string>): AsyncGenerator<Row> {
  let pending = "";
  let line = 0;
  let row = 0;
  const toRow = (text: string): Row | undefined => {
    line += 1;
    if (line === 1) text = text.replace(/^\uFEFF/, "");
    if (text.trim() === "") return undefined;
    row += 1;
    const at = { row, line, size: text.length + 1 };
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return { ...at, error: `not valid JSON: ${(error as Error).message}` };
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) return { ...at, error: "not a JSON object" };
    return { ...at, body: value as Record<string, unknown> };
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
