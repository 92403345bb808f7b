// A workbook's cells as the import reads them: numbers as numbers (read to the digits a spreadsheet
// shows), codes formatted 00000 with their zeros, a date formula's saved value as a date, booleans,
// rich text; a formula with no saved value or an error rejects its row, naming the cell. And the
// archive as it is read: a sheet stored before workbook.xml, stdin, a file cut short or damaged, a
// part that unpacks past its bound.
import { expect, test } from "bun:test";
import { once } from "node:events";
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { WorkbookWriter } from "@cj-tech-master/excelts";
import { sheetXml, workbookParts, writeZip } from "@erp/testing/zip";
import { openSource, type Row } from "./rows.ts";
import { currencyOf } from "./xlsx-cells.ts";
import { normalise, textOf } from "./values.ts";

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

const HEADER = '<row r="1"><c t="inlineStr"><is><t>name</t></is></c></row>';
const ANN = '<row r="2"><c t="inlineStr"><is><t>Ann</t></is></c></row>';

async function rowsOf(file: string, stdin?: Buffer): Promise<unknown[]> {
  const source = await openSource(stdin ? "-" : file, undefined, {
    ...(stdin ? { stdin: Readable.from([stdin]) } : {}),
  });
  const rows: unknown[] = [];
  for await (const row of source.rows) rows.push(row.cells ?? row.error);
  return rows;
}

test("a sheet stored before workbook.xml, from a file and from stdin: read, and nothing left behind", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "erp-xlsx-"));
  const file = path.join(dir, "sheet-first.xlsx");
  await writeZip(file, workbookParts(sheetXml(HEADER + ANN), { sheetFirst: true }));
  expect(await rowsOf(file)).toEqual([["Ann"]]);
  const before = readdirSync(tmpdir()).filter((name) => name.startsWith("erp-stdin-"));
  expect(await rowsOf(file, readFileSync(file))).toEqual([["Ann"]]);
  expect(readdirSync(tmpdir()).filter((name) => name.startsWith("erp-stdin-"))).toEqual(before);
});

test("cut short, damaged, or unpacking past 100 times its size: refused, never a sheet of no rows", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "erp-xlsx-"));
  const whole = path.join(dir, "whole.xlsx");
  await writeZip(whole, workbookParts(sheetXml(HEADER + ANN)));
  const cut = path.join(dir, "cut.xlsx");
  await writeZip(cut, workbookParts(sheetXml(HEADER + ANN)), { cut: 100 });
  await expect(openSource(cut, undefined)).rejects.toThrow("unreadable as an Excel workbook");
  // A part's packed bytes overwritten: its directory stands, its data does not inflate.
  const bytes = readFileSync(whole);
  const sheetAt = bytes.indexOf("xl/worksheets/sheet1.xml") + "xl/worksheets/sheet1.xml".length;
  bytes.fill(0xff, sheetAt, sheetAt + 20);
  const damaged = path.join(dir, "damaged.xlsx");
  writeFileSync(damaged, bytes);
  await expect(openSource(damaged, undefined)).rejects.toThrow("unreadable as an Excel workbook");
  const padded = path.join(dir, "padded.xlsx");
  const spaces = function* () {
    yield sheetXml(HEADER).replace("</sheetData>", "");
    for (let i = 0; i < 50; i++) yield " ".repeat(1024 * 1024);
    yield "</sheetData></worksheet>";
  };
  await writeZip(padded, workbookParts(spaces));
  await expect(openSource(padded, undefined)).rejects.toThrow("100 times the file's");
});

test("more shared strings than the sheets have cells to use: refused before their index grows", async () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "erp-xlsx-")), "strings.xlsx");
  const sheet = sheetXml('<row r="1"><c t="s"><v>0</v></c></row>');
  // Noise that does not pack, so the file is large enough for the strings to unpack within 100 times it.
  const noise = {
    name: "docProps/noise.txt",
    content: Array.from({ length: 8000 }, () => crypto.randomUUID()).join(""),
  };
  await writeZip(file, [
    ...workbookParts(sheet, { sharedStrings: `<sst>${"<si/>".repeat(200_000)}</sst>` }),
    noise,
  ]);
  await expect(openSource(file, undefined)).rejects.toThrow(
    "more than its sheets have cells to use",
  );
});
