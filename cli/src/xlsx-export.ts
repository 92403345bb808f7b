// `erp export <resource> --format xlsx`: one sheet, a header row and typed cells, written to stdout
// as the pages come (ExcelTS's streaming WorkbookWriter; docs/cli.md says why that library). Dates
// are date cells, money numbers shown with two decimals, ids numbers, text text: a spreadsheet sorts
// and sums them as they are, and `erp import` reads them back as the same values.
import { Writable } from "node:stream";
import { WorkbookWriter } from "@cj-tech-master/excelts";
import type { Output } from "./factory.ts";
import { flatten, type RecordSink } from "./output.ts";
import type { ResourceSpec } from "./resources.ts";
import { UsageError } from "./usage-error.ts";

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** How a column's values are written, from the field's kind in the collection table. */
type Kind = "money" | "date" | "plain";

function kindOf(spec: Pick<ResourceSpec, "kinds">, column: string): Kind {
  const kind = spec.kinds[column];
  return kind === "money" || kind === "date" ? kind : "plain";
}

/** A cell of a column of that kind: what the API sends as text becomes the number or date it stands for. */
function cellOf(kind: Kind, value: unknown): string | number | boolean | Date | null {
  if (value === null || value === undefined) return null;
  if (
    kind === "money" &&
    typeof value === "string" &&
    value.trim() !== "" &&
    Number.isFinite(Number(value))
  )
    return Number(value);
  if (kind === "date" && typeof value === "string" && DATE.test(value)) {
    const [year, month, day] = value.split("-").map(Number) as [number, number, number];
    return new Date(Date.UTC(year, month - 1, day));
  }
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
    return value;
  return JSON.stringify(value);
}

const FORMATS: Record<Kind, string | undefined> = {
  money: "#,##0.00",
  date: "yyyy-mm-dd",
  plain: undefined,
};

export function xlsxSink(
  spec: Pick<ResourceSpec, "name" | "kinds">,
  out: Output,
  headerOf: (column: string) => string = (column) => column,
): RecordSink {
  if (out.isTTY)
    throw new UsageError(
      "an .xlsx workbook is binary: send it to a file (erp export … --format xlsx > records.xlsx)",
    );
  // stdout, waiting when its buffer is full, so a long export does not pile up in memory.
  const output = new Writable({
    write(chunk: Uint8Array, _encoding, done) {
      if (out.write(chunk)) done();
      else out.once("drain", () => done());
    },
  });
  const workbook = new WorkbookWriter({ stream: output, useStyles: true, useSharedStrings: false });
  const sheet = workbook.addWorksheet(spec.name);
  let columns: { name: string; kind: Kind }[] | undefined;
  return {
    async write(record) {
      const flat = flatten(record);
      if (!columns) {
        columns = Object.keys(flat).map((name) => ({ name, kind: kindOf(spec, name) }));
        sheet.addRow(columns.map((column) => headerOf(column.name))).commit();
      }
      const row = sheet.addRow(columns.map((column) => cellOf(column.kind, flat[column.name])));
      columns.forEach((column, index) => {
        const numFmt = FORMATS[column.kind];
        if (numFmt) row.getCell(index + 1).numFmt = numFmt;
      });
      row.commit();
    },
    async end() {
      sheet.commit();
      const finished = new Promise<void>((resolve, reject) => {
        output.once("finish", resolve);
        output.once("error", reject);
      });
      await workbook.commit();
      await finished;
    },
  };
}
