// An incremental RFC 4180 parser: feed it text chunks, get whole records back, so a file never sits in
// memory at once. It scans by character code and takes each field as one slice of the text. The
// delimiter is a comma unless the file's header says otherwise (`;` and tab: delimiterOf).

/** One record, with where it starts in the file and how many characters it took (for progress). */
export interface CsvRecord {
  fields: string[];
  /** 1-based line on which the record starts (a quoted field may span lines). */
  line: number;
  /** Characters the record took, its line break included. */
  size: number;
  /** Set when the record is malformed (a quoted field never closed). */
  error?: string;
}

const QUOTE = 34;
const LF = 10;
const CR = 13;

/** The delimiters a CSV may use: Excel and LibreOffice write `;` where the comma is the decimal mark. */
export const DELIMITERS = [",", ";", "\t"] as const;
export type Delimiter = (typeof DELIMITERS)[number];

/**
 * The delimiter of a file from its header line (up to the first line break outside quotes): the one
 * of `,`, `;` and tab it uses most, a comma when it uses none (one column) or the header is unknown.
 */
export function delimiterOf(text: string): Delimiter {
  const counts = new Map<string, number>(DELIMITERS.map((delimiter) => [delimiter, 0]));
  let quoted = false;
  for (let at = 0; at < text.length; at++) {
    const char = text[at]!;
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === "\n" || char === "\r")) break;
    else if (!quoted && counts.has(char)) counts.set(char, counts.get(char)! + 1);
  }
  let best: Delimiter = ",";
  for (const delimiter of DELIMITERS)
    if (counts.get(delimiter)! > counts.get(best)!) best = delimiter;
  return best;
}

export class CsvParser {
  readonly #delimiter: number;
  readonly delimiter: Delimiter;
  /** Text not yet parsed: the start of a record the chunks so far did not finish. */
  #pending = "";
  #line = 1;
  #started = false;
  /** Whether the text started with a byte-order mark (dropped from the first field). */
  bom = false;
  /** Empty lines skipped so far: they are no record, but an import still accounts for them. */
  blankLines = 0;

  constructor(delimiter: Delimiter = ",") {
    this.delimiter = delimiter;
    this.#delimiter = delimiter.charCodeAt(0);
  }

  /** Parses a chunk and returns the records it completed; a partial record waits for the next chunk. */
  push(chunk: string): CsvRecord[] {
    let text = this.#pending + chunk;
    if (!this.#started && text.length > 0) {
      this.#started = true;
      this.bom = text.charCodeAt(0) === 0xfeff;
      if (this.bom) text = text.slice(1);
    }
    const records: CsvRecord[] = [];
    let start = 0;
    for (;;) {
      const parsed = this.#record(text, start, false);
      if (!parsed) break;
      if (parsed.record) records.push(parsed.record);
      else this.blankLines++;
      start = parsed.next;
    }
    this.#pending = text.slice(start);
    return records;
  }

  /** Call once the input has ended: returns the last record if the file did not end with a line break. */
  end(): CsvRecord[] {
    const text = this.#pending;
    this.#pending = "";
    if (text.length === 0) return [];
    const parsed = this.#record(text, 0, true);
    if (parsed?.record) return [parsed.record];
    this.blankLines++;
    return [];
  }

  /**
   * The record starting at `start`, and where the next one starts; undefined when the text ends
   * before the record does (unless `last`). A blank line is no record (common at a file's end).
   */
  #record(
    text: string,
    start: number,
    last: boolean,
  ): { record?: CsvRecord; next: number } | undefined {
    const fields: string[] = [];
    const line = this.#line;
    let lines = 0;
    let at = start;
    for (;;) {
      if (at < text.length && text.charCodeAt(at) === QUOTE) {
        // A quoted field: up to the quote not doubled; what follows it up to the delimiter is kept as is.
        let value = "";
        let from = at + 1;
        for (;;) {
          const quote = text.indexOf('"', from);
          if (quote < 0) {
            if (!last) return undefined;
            this.#line += lines + countLines(text, from, text.length);
            return {
              record: {
                fields: [],
                line,
                size: text.length - start,
                error: `a quoted field opened on line ${line + lines} is never closed`,
              },
              next: text.length,
            };
          }
          lines += countLines(text, from, quote);
          if (quote + 1 >= text.length && !last) return undefined;
          if (text.charCodeAt(quote + 1) === QUOTE) {
            value += text.slice(from, quote + 1);
            from = quote + 2;
            continue;
          }
          value += text.slice(from, quote);
          at = quote + 1;
          break;
        }
        const end = fieldEnd(text, at, this.#delimiter);
        if (end < 0 && !last) return undefined;
        value += text.slice(at, end < 0 ? text.length : end);
        fields.push(value);
        at = end < 0 ? text.length : end;
      } else {
        const end = fieldEnd(text, at, this.#delimiter);
        if (end < 0 && !last) return undefined;
        fields.push(text.slice(at, end < 0 ? text.length : end));
        at = end < 0 ? text.length : end;
      }
      if (at >= text.length) {
        this.#line += lines;
        return finish(fields, line, text.length - start, text.length);
      }
      const code = text.charCodeAt(at);
      if (code === this.#delimiter) {
        at += 1;
        continue;
      }
      // A line break ends the record: \n, \r\n or a lone \r. A \r at a chunk's end waits for the next one.
      if (code === CR && at + 1 >= text.length && !last) return undefined;
      const next = code === CR && text.charCodeAt(at + 1) === LF ? at + 2 : at + 1;
      this.#line += lines + 1;
      return finish(fields, line, next - start, next);
    }
  }
}

function finish(
  fields: string[],
  line: number,
  size: number,
  next: number,
): { record?: CsvRecord; next: number } {
  const blank = fields.length === 1 && fields[0] === "";
  return blank ? { next } : { record: { fields, line, size }, next };
}

/** Where the unquoted field starting at `from` ends: the next delimiter or line break, or -1. */
function fieldEnd(text: string, from: number, delimiter: number): number {
  for (let at = from; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === delimiter || code === LF || code === CR) return at;
  }
  return -1;
}

/** Line breaks between `from` and `to` (\r\n counts once). */
function countLines(text: string, from: number, to: number): number {
  let lines = 0;
  for (let at = from; at < to; at++) {
    const code = text.charCodeAt(at);
    if (code === LF || (code === CR && text.charCodeAt(at + 1) !== LF)) lines++;
  }
  return lines;
}
