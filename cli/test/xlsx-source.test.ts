// A workbook's cells as the import reads them: numbers as numbers (read to the digits a spreadsheet
// shows), codes formatted 00000 with their zeros, a date formula's saved value as a date, booleans,
// rich text; a formula with no saved value or an error rejects its row, naming the cell.
import { expect, test } from "bun:test";
import { once } from "node:events";
import { createWriteStream, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { WorkbookWriter } from "@cj-tech-master/excelts";
import { openSource, type Row } from "../src/import/rows.ts";
import { currencyOf } from "../src/import/xlsx-cells.ts";
import { normalise, textOf } from "../src/import/values.ts";

test("cells as the import reads them", async () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "erp-xlsx-")), "cells.xlsx");
  const output = createWriteStream(file);
  const writer = new WorkbookWriter({ stream: output, useStyles: true, useSharedStrings: true });
  const sheet = writer.addWorksheet("Cells");
  sheet.addRow(["number", "code", "date", "flag", "text"]).commit();
  const first = sheet.addRow([
    0.1 + 0.2,
    42,
    { formula: "DATE(2024,3,15)", result: 45366 },
    true,
    { richText: [{ text: "Ana " }, { text: "Silva", font: { bold: true } }] },
  ]);
  first.getCell(2).numFmt = "00000";
  first.getCell(3).numFmt = "yyyy-mm-dd";
  first.commit();
  sheet.addRow([1250.5, "007", new Date(Date.UTC(2024, 0, 2, 13, 30)), false, "x"]).commit();
  sheet.addRow([{ formula: "1/0", result: { error: "#DIV/0!" } }, null, null, null, null]).commit();
  sheet.addRow([null, null, { formula: "TODAY()" }, null, null]).commit();
  sheet.commit();
  const closed = once(output, "close");
  await writer.commit();
  await closed;

  const source = await openSource(file, undefined);
  expect(source.format).toBe("xlsx");
  expect(source.header).toEqual(["number", "code", "date", "flag", "text"]);
  const rows: Omit<Row, "size">[] = [];
  for await (const { size: _size, ...row } of source.rows) rows.push(row);
  expect(rows).toEqual([
    {
      row: 1,
      line: 2,
      cells: [0.1 + 0.2, "00042", new Date("2024-03-15T00:00:00Z"), true, "Ana Silva"],
    },
    { row: 2, line: 3, cells: [1250.5, "007", "2024-01-02T13:30:00", false, "x"] },
    {
      row: 3,
      line: 4,
      error: expect.stringContaining("cell A4 holds a formula whose value is the error #DIV/0!"),
    },
    {
      row: 4,
      line: 5,
      error: expect.stringContaining("cell C5 holds a formula with no saved value"),
    },
  ]);

  // As the values module reads them: 0.1 + 0.2 to the 15 digits a spreadsheet shows, the date as its
  // day, a number untouched by --decimal-comma (meant for text).
  const [sum, , date] = rows[0]!.cells!;
  const options = { decimalComma: true, dateFormat: undefined };
  expect(textOf(sum!)).toBe("0.3");
  expect(normalise(sum!, "number", options)).toEqual({ value: 0.3 });
  expect(normalise(date!, "date", options)).toEqual({ value: "2024-03-15" });
  expect(normalise(rows[1]!.cells![0]!, "amount", options)).toEqual({ value: "1250.5" });
});

test("the currency a number format shows", () => {
  const shown = (numFmt: string): string | undefined => currencyOf(numFmt);
  expect(shown('"€"#,##0.00')).toBe("€");
  expect(shown("[$€-407]#,##0.00")).toBe("€");
  expect(shown("#,##0.00 [$EUR]")).toBe("EUR");
  expect(shown("$#,##0.00")).toBe("$");
  expect(shown('_-* #,##0.00\\ "€"_-;\\-* #,##0.00\\ "€"_-')).toBe("€");
  expect(shown("_(£* #,##0.00_)")).toBe("£");
  for (const none of [
    "[$-409]#,##0.00",
    "#,##0.00",
    "[Red]#,##0.00",
    '0 "pcs"',
    "yyyy-mm-dd",
    "0%",
  ])
    expect(shown(none)).toBeUndefined();
});
