// An incremental RFC 4180 parser: feed it text chunks, get whole records back, so a file never sits in memory at once.

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

type State = "field-start" | "unquoted" | "quoted" | "quote-in-quoted";

export class CsvParser {
  #state: State = "field-start";
  #field = "";
  #fields: string[] = [];
  #line = 1;
  #recordLine = 1;
  #size = 0;
  #afterCr = false;
  #started = false;

  /** Parses a chunk and returns the records it completed; a partial record waits for the next chunk. */
  push(chunk: string): CsvRecord[] {
    const records: CsvRecord[] = [];
    let text = chunk;
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    for (const char of text) {
      this.#size += char.length;
      if (this.#afterCr) {
        this.#afterCr = false;
        // The \n of a \r\n already ended its record.
        if (char === "\n") {
          this.#recordLine = this.#line;
          this.#size = 0;
          continue;
        }
      }
      switch (this.#state) {
        case "quoted":
          if (char === '"') this.#state = "quote-in-quoted";
          else {
            if (char === "\n") this.#line++;
            this.#field += char;
          }
          continue;
        case "quote-in-quoted":
          if (char === '"') {
            this.#field += '"';
            this.#state = "quoted";
            continue;
          }
          this.#state = "unquoted";
          break;
        case "field-start":
          if (char === '"') {
            this.#state = "quoted";
            continue;
          }
          break;
        case "unquoted":
          break;
      }
      // Unquoted text (or the text after a closing quote, kept as is rather than failing the row).
      if (char === ",") {
        this.#endField();
      } else if (char === "\n" || char === "\r") {
        this.#afterCr = char === "\r";
        this.#line++;
        const record = this.#endRecord();
        if (record) records.push(record);
      } else {
        this.#field += char;
        this.#state = "unquoted";
      }
    }
    return records;
  }

  /** Call once the input has ended: returns the last record if the file did not end with a line break. */
  end(): CsvRecord[] {
    if (this.#state === "quoted") {
      const line = this.#recordLine;
      this.#state = "field-start";
      return [{ fields: [], line, size: this.#size, error: `a quoted field opened on line ${line} is never closed` }];
    }
    const record = this.#endRecord();
    return record ? [record] : [];
  }

  #endField(): void {
    this.#fields.push(this.#field);
    this.#field = "";
    this.#state = "field-start";
  }

  #endRecord(): CsvRecord | undefined {
    const empty = this.#fields.length === 0 && this.#field === "" && this.#state === "field-start";
    this.#endField();
    const record: CsvRecord = { fields: this.#fields, line: this.#recordLine, size: this.#size };
    this.#fields = [];
    this.#recordLine = this.#line;
    this.#size = 0;
    // A blank line is no record (common at the end of a file).
    return empty ? undefined : record;
  }
}
