// The --report file: one NDJSON line per rejected or repeated row, written as rows are read and answered.
import { createWriteStream, openSync, type WriteStream } from "node:fs";
import { UsageError } from "../usage-error.ts";

/** What a rejected row's report line says. */
export interface Rejection {
  row: number;
  line: number;
  /** The HTTP status; null when the row never reached the API (unreadable row, or no answer in time). */
  status: number | null;
  code: string;
  detail: string;
  errors: { field: string; code: string; message: string }[];
  /** True when the server replayed the answer it gave this row's key in an earlier run. */
  replayed?: boolean;
  request_id?: string;
  /** A unique value given twice: the row that gave it first. */
  duplicate_of?: { row: number; line: number };
}

/** What a repeated row's report line says: the earlier row it repeats, and whether it was left out. */
export interface Repetition {
  row: number;
  line: number;
  code: "repeated_row";
  repeats: { row: number; line: number };
  /** True with --skip-repeated: the row was not sent. */
  skipped: boolean;
}

export class Report {
  readonly #stream: WriteStream | undefined;

  /** Opens (and empties) the file at once, so a bad path fails before any row is sent. */
  constructor(file: string | undefined) {
    if (file === undefined) return;
    let fd: number;
    try {
      fd = openSync(file, "w");
    } catch (error) {
      throw new UsageError(`cannot write the report to ${file}: ${(error as Error).message}`);
    }
    this.#stream = createWriteStream("", { fd });
  }

  add(line: Rejection | Repetition): void {
    this.#stream?.write(`${JSON.stringify(line)}\n`);
  }

  close(): Promise<void> {
    const stream = this.#stream;
    if (!stream) return Promise.resolve();
    return new Promise((resolve, reject) => {
      stream.on("error", reject);
      stream.end(() => resolve());
    });
  }
}
