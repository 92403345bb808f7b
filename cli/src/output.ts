// Data on stdout in the format asked for: json, ndjson, table or csv (tables for people, JSON for scripts).
import { bold } from "./colour.ts";
import { type Output, writeTo } from "./factory.ts";
import { escapeFormula } from "./formula-escape.ts";
import { UsageError } from "./usage-error.ts";

export const OUTPUT_FORMATS = ["json", "ndjson", "table", "csv"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

type Row = Record<string, unknown>;

/** `--output` as given, else a table on a terminal and JSON when piped. */
export function outputFormat(
  value: string | undefined,
  terminal = process.stdout.isTTY === true,
): OutputFormat {
  if (value === undefined) return terminal ? "table" : "json";
  if ((OUTPUT_FORMATS as readonly string[]).includes(value)) return value as OutputFormat;
  throw new UsageError(
    `--output must be one of ${OUTPUT_FORMATS.join(", ")}, not ${JSON.stringify(value)}`,
  );
}

// A reader that went away (`erp export … | head`) is not an error worth a stack trace.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

/** Prints one object: a record, a write result, the usage report. */
export async function printOne(
  format: OutputFormat,
  value: Row,
  out: Output = process.stdout,
): Promise<void> {
  const write = (text: string): Promise<void> => writeTo(out, text);
  if (format === "json") return write(`${JSON.stringify(value, null, 2)}\n`);
  if (format === "ndjson") return write(`${JSON.stringify(value)}\n`);
  const flat = flatten(value);
  if (format === "csv") return write(csvLine(Object.keys(flat)) + csvLine(Object.values(flat)));
  return write(
    renderTable(
      ["field", "value"],
      Object.entries(flat).map(([key, cell]) => [key, text(cell)]),
    ),
  );
}

/** Receives records one at a time; json, ndjson and csv are written as they come, a table once all are in. */
export interface RecordSink {
  write(record: Row): Promise<void>;
  end(): Promise<void>;
}

export interface SinkOptions {
  /** CSV starts with a UTF-8 byte-order mark, which spreadsheet programs need to read it as UTF-8. */
  bom?: boolean;
  out?: Output;
  /** Where a table says it has no records. */
  err?: Output;
  /** A CSV's header cell of a (flattened) column: an export heads a custom field's by its label. */
  header?: (column: string) => string;
}

export function recordSink(format: OutputFormat, options: SinkOptions = {}): RecordSink {
  const out = options.out ?? process.stdout;
  const write = (text: string): Promise<void> => writeTo(out, text);
  switch (format) {
    case "json":
      return jsonArraySink(write);
    case "ndjson":
      return { write: (record) => write(`${JSON.stringify(record)}\n`), end: async () => {} };
    case "csv":
      return csvSink(write, options.bom === true, options.header ?? ((column) => column));
    case "table":
      return tableSink(write, options.err ?? process.stderr);
  }
}

/** Prints a list of records at once. */
export async function printMany(
  format: OutputFormat,
  records: readonly Row[],
  options: SinkOptions = {},
): Promise<void> {
  const sink = recordSink(format, options);
  for (const record of records) await sink.write(record);
  await sink.end();
}

type Write = (text: string) => Promise<void>;

function jsonArraySink(write: Write): RecordSink {
  let count = 0;
  return {
    write(record) {
      const item = JSON.stringify(record, null, 2).replace(/^/gm, "  ");
      return write(`${count++ === 0 ? "[\n" : ",\n"}${item}`);
    },
    end: () => write(count === 0 ? "[]\n" : "\n]\n"),
  };
}

function csvSink(write: Write, bom: boolean, headerOf: (column: string) => string): RecordSink {
  let columns: string[] | undefined;
  return {
    write(record) {
      const flat = flatten(record);
      let header = "";
      if (columns === undefined) {
        columns = Object.keys(flat);
        header = (bom ? "\uFEFF" : "") + csvLine(columns.map(headerOf));
      }
      return write(header + csvLine(columns.map((column) => flat[column])));
    },
    end: async () => {},
  };
}

function tableSink(write: Write, err: Output): RecordSink {
  const rows: Row[] = [];
  return {
    write: async (record) => void rows.push(flatten(record)),
    async end() {
      if (rows.length === 0) return void err.write("No records.\n");
      const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
      await write(
        renderTable(
          columns,
          rows.map((row) => columns.map((column) => text(row[column]))),
        ),
      );
    },
  };
}

/** Terminal columns a cell may take. */
const MAX_CELL = 40;

const graphemes = new Intl.Segmenter();

/** The cell cut to `max` terminal columns (CJK characters and emoji take two), with … when cut. */
function fit(cell: string, max: number): string {
  if (Bun.stringWidth(cell) <= max) return cell;
  let kept = "";
  for (const { segment } of graphemes.segment(cell)) {
    if (Bun.stringWidth(kept + segment) > max - 1) break;
    kept += segment;
  }
  return `${kept}…`;
}

/** Pads by terminal columns, not characters, so columns line up under CJK names. */
const pad = (cell: string, width: number): string =>
  cell + " ".repeat(Math.max(0, width - Bun.stringWidth(cell)));

function renderTable(columns: readonly string[], rows: readonly string[][]): string {
  const cells = rows.map((row) => row.map((cell) => fit(cell, MAX_CELL)));
  const widths = columns.map((column, i) =>
    Math.max(Bun.stringWidth(column), ...cells.map((row) => Bun.stringWidth(row[i] ?? ""))),
  );
  const line = (row: readonly string[]): string =>
    row
      .map((cell, i) => pad(cell, widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return `${[bold(line(columns.map((c) => c.toUpperCase()))), ...cells.map(line)].join("\n")}\n`;
}

/** Nested objects become dotted columns (`changes.status.to`), so tables and CSV stay two-dimensional. */
export function flatten(value: Row, prefix = "", into: Row = {}): Row {
  for (const [key, cell] of Object.entries(value)) {
    if (cell !== null && typeof cell === "object" && !Array.isArray(cell)) {
      // An empty object (the custom fields of a company that defined none) has no column.
      flatten(cell as Row, `${prefix}${key}.`, into);
    } else {
      into[prefix + key] = cell;
    }
  }
  return into;
}

function text(cell: unknown): string {
  if (cell === null || cell === undefined) return "";
  if (typeof cell === "object") return JSON.stringify(cell);
  return String(cell).replace(/[\r\n]+/g, " ");
}

/**
 * One RFC 4180 line: fields with the delimiter, a quote or a line break are quoted, quotes doubled;
 * text a spreadsheet program would run as a formula starts with `'` (formula-escape.ts).
 */
export function csvLine(values: readonly unknown[], delimiter = ","): string {
  return `${values
    .map((value) => {
      const cell =
        value === null || value === undefined
          ? ""
          : typeof value === "object"
            ? JSON.stringify(value)
            : typeof value === "string"
              ? escapeFormula(value)
              : String(value);
      return cell.includes(delimiter) || /["\r\n]/.test(cell)
        ? `"${cell.replaceAll('"', '""')}"`
        : cell;
    })
    .join(delimiter)}\r\n`;
}
