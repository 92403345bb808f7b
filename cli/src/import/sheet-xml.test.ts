// The worksheet scanner reads the XML spreadsheet programs write, however it is cut into chunks:
// namespace prefixes, rows and cells without `r`, self-closing rows, inline strings with entities,
// escapes and phonetic runs, formulas with and without a saved value, attributes in any order; and
// the shared strings, their runs joined without phonetic ones. What no workbook holds is refused:
// Excel's limits passed, XML cut short, unclosed or nested where it may not be.
import { expect, test } from "bun:test";
import { type ScannedRow, SharedStringsScanner, SheetXmlScanner } from "./sheet-xml.ts";
import { UnreadableWorkbook, WorkbookLimitError } from "./workbook-limits.ts";

const SHEET = [
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n',
  '<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData>',
  '<x:row r="1" spans="1:3"><x:c r="A1" t="s"><x:v>0</x:v></x:c>',
  '<x:c r="C1" s="2"><x:v>45366</x:v></x:c></x:row>',
  '<x:row r="3"/>',
  "<x:row r='4'><x:c r='B4' t='inlineStr'><x:is><x:r><x:t>Ana &amp; </x:t></x:r>",
  '<x:r><x:t xml:space="preserve">Bo_x000D_</x:t></x:r>',
  "<x:rPh sb='0' eb='1'><x:t>ア</x:t></x:rPh></x:is></x:c></x:row>",
  '<x:row><x:c><x:f>1+1</x:f><x:v>2</x:v></x:c><x:c t="str"><x:f>"a"&amp;"b"</x:f><x:v>a&lt;b</x:v></x:c>',
  "<x:c><x:f>NOW()</x:f></x:c><x:c/></x:row>",
  // Attributes in the usual order, and in another order with one more.
  '<x:row r="6"><x:c r="A6" s="1" t="s"><x:v>3</x:v></x:c>',
  '<x:c t="n" s="4" r="C6" cm="1"><x:v>7</x:v></x:c></x:row>',
  "</x:sheetData></x:worksheet>",
].join("");

const EXPECTED: ScannedRow[] = [
  {
    number: 1,
    cells: [
      { column: 1, type: "s", style: undefined, value: "0", formula: false },
      { column: 3, type: undefined, style: 2, value: "45366", formula: false },
    ],
  },
  {
    number: 4,
    cells: [
      { column: 2, type: "inlineStr", style: undefined, value: "Ana & Bo\r", formula: false },
    ],
  },
  {
    number: 5,
    cells: [
      { column: 1, type: undefined, style: undefined, value: "2", formula: true },
      { column: 2, type: "str", style: undefined, value: "a<b", formula: true },
      { column: 3, type: undefined, style: undefined, value: undefined, formula: true },
      { column: 4, type: undefined, style: undefined, value: undefined, formula: false },
    ],
  },
  {
    number: 6,
    cells: [
      { column: 1, type: "s", style: 1, value: "3", formula: false },
      { column: 3, type: "n", style: 4, value: "7", formula: false },
    ],
  },
];

test("reads every row and cell, whatever the chunks", () => {
  for (const size of [1, 2, 7, 64, SHEET.length]) {
    const scanner = new SheetXmlScanner();
    const rows: ScannedRow[] = [];
    for (let at = 0; at < SHEET.length; at += size)
      rows.push(...scanner.push(SHEET.slice(at, at + size)));
    expect(rows).toEqual(EXPECTED);
  }
});

test("reads every shared string, whatever the chunks", () => {
  const part = [
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n',
    '<x:sst xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="6" uniqueCount="6">',
    "<x:si><x:t>Ana &amp; Bo &#233;&#x20AC;</x:t></x:si>",
    '<x:si><x:r><x:rPr><x:b/><x:rFont val="Calibri"/></x:rPr><x:t xml:space="preserve">Rich </x:t></x:r>',
    "<x:r><x:t>text</x:t></x:r></x:si>",
    "<x:si><x:t>漢字</x:t><x:rPh sb='0' eb='2'><x:t>かんじ</x:t></x:rPh></x:si>",
    "<x:si/><x:si><x:t/></x:si>",
    "<x:si><x:t>Tab_x0009_here</x:t></x:si>",
    "</x:sst>",
  ].join("");
  for (const size of [1, 3, 16, part.length]) {
    const scanner = new SharedStringsScanner();
    const strings: string[] = [];
    for (let at = 0; at < part.length; at += size)
      strings.push(...scanner.push(part.slice(at, at + size)));
    expect(strings).toEqual(["Ana & Bo é€", "Rich text", "漢字", "", "", "Tab\there"]);
  }
});

/** The rows of a sheet's XML fed in chunks of `size`, or what stops the scanner. */
function scan(xml: string, size = 65_536): ScannedRow[] {
  const scanner = new SheetXmlScanner();
  const rows: ScannedRow[] = [];
  for (let at = 0; at < xml.length; at += size)
    rows.push(...scanner.push(xml.slice(at, at + size)));
  return [...rows, ...scanner.end()];
}

const sheet = (rows: string): string =>
  `<worksheet xmlns="${MAIN}"><sheetData>${rows}</sheetData></worksheet>`;
const MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const cell = (ref: string, text: string): string =>
  `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;

test("padding between tags is passed over as it comes, whatever its length", () => {
  const padded = sheet(`<row r="1">${" ".repeat(20_000_000)}${cell("A1", "x")}</row>`);
  expect(scan(padded)).toEqual([
    {
      number: 1,
      cells: [{ column: 1, type: "inlineStr", style: undefined, value: "x", formula: false }],
    },
  ]);
});

test("a > inside a quoted attribute does not end the tag", () => {
  expect(scan(sheet(`<row r="1" x="a>b">${cell("B1", "y")}</row>`))[0]!.cells[0]!.column).toBe(2);
});

test("Excel's limits: a row past 1,048,576, a column past XFD, a cell past 32,767 characters", () => {
  expect(() => scan(sheet(`<row r="2000000000">${cell("A2000000000", "x")}</row>`))).toThrow(
    WorkbookLimitError,
  );
  expect(() => scan(sheet(`<row r="2">${cell("FXSHRXW2", "x")}</row>`))).toThrow(
    "past Excel's limit of 16,384 columns",
  );
  expect(() => scan(sheet(`<row r="2">${cell("XFD2", "x")}</row>`))).not.toThrow();
  expect(() => scan(sheet(`<row r="2">${cell("A2", "x".repeat(32_768))}</row>`))).toThrow(
    "more than 32,767 characters",
  );
  const strings = new SharedStringsScanner();
  expect(() => strings.push(`<sst><si><t>${"y".repeat(32_768)}</t></si>`)).toThrow(
    "more than 32,767 characters",
  );
});

test("unclosed, nested or cut-short XML is unreadable, not a sheet with fewer rows", () => {
  expect(() => scan(sheet(`<row r="1">${"<c>".repeat(200_000)}`))).toThrow(UnreadableWorkbook);
  const cut = sheet(`<row r="1">${cell("A1", "x")}</row><row r="2">${cell("A2", "y")}</row>`);
  expect(() => scan(cut.slice(0, cut.indexOf("</row>") + 20))).toThrow(UnreadableWorkbook);
  expect(() => scan(sheet(`<row r="2"/><row r="1">${cell("A1", "x")}</row>`))).toThrow(
    "row 1 after row 2",
  );
  const strings = new SharedStringsScanner();
  strings.push("<sst><si><t>half");
  expect(() => strings.end()).toThrow(UnreadableWorkbook);
});
