// The streaming CSV parser gives the same records however the file is cut into chunks.
import { describe, expect, test } from "bun:test";
import { CsvParser, type CsvRecord, delimiterOf } from "./csv-parser.ts";

function parse(chunks: string[]): Omit<CsvRecord, "size">[] {
  const parser = new CsvParser();
  const records = [...chunks.flatMap((chunk) => parser.push(chunk)), ...parser.end()];
  return records.map(({ size: _size, ...rest }) => rest);
}

const FILE =
  '\uFEFFname,note\r\n"a, b","say ""hi""\r\nsecond line"\r\n\r\nplain,\n"",x\rlast,"q"tail';

describe("CsvParser", () => {
  test("quotes, doubled quotes, line breaks inside quotes, CRLF, LF, CR, blank lines, a BOM and no final break", () => {
    expect(parse([FILE])).toEqual([
      { fields: ["name", "note"], line: 1 },
      { fields: ["a, b", 'say "hi"\r\nsecond line'], line: 2 },
      { fields: ["plain", ""], line: 5 },
      { fields: ["", "x"], line: 6 },
      { fields: ["last", "qtail"], line: 7 },
    ]);
  });

  test("empty lines are no record, but counted; a BOM is noted", () => {
    const parser = new CsvParser();
    parser.push(FILE);
    parser.end();
    expect(parser.blankLines).toBe(1);
    expect(parser.bom).toBe(true);
    const trailing = new CsvParser();
    trailing.push("a\n\nb\n\n");
    trailing.end();
    expect([trailing.blankLines, trailing.bom]).toEqual([2, false]);
  });

  test("every way of cutting the file in two gives the same records", () => {
    const whole = parse([FILE]);
    for (let cut = 0; cut <= FILE.length; cut++)
      expect(parse([FILE.slice(0, cut), FILE.slice(cut)])).toEqual(whole);
    expect(parse([...FILE])).toEqual(whole);
  });

  test("a quoted field that never closes is reported, not swallowed", () => {
    const records = parse(['name\n"open,', "still open\n"]);
    expect(records.at(-1)?.error).toContain("line 2");
  });

  test("sizes add up to the file's length, for the progress bar", () => {
    const parser = new CsvParser();
    const text = 'h1,h2\n"x\ny",2\n3,4';
    const sizes = [...parser.push(text), ...parser.end()].map((record) => record.size);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(text.length);
  });
});

describe("the delimiter, from the header line", () => {
  test("the one it uses most of , ; and tab, outside quotes; a comma for one column", () => {
    expect(delimiterOf("name;email;hourly_rate\r\nAnn;a@x.com;1,5")).toBe(";");
    expect(delimiterOf("name\temail\nAnn\ta@x.com")).toBe("\t");
    expect(delimiterOf('"a;b;c",d,e\n')).toBe(",");
    expect(delimiterOf("name\nAnn;Bo;Cy")).toBe(",");
  });

  test("a semicolon file parses with its delimiter, a comma inside a cell is text", () => {
    const parser = new CsvParser(";");
    const records = [...parser.push('name;hourly_rate\r\n"Lee; Ann";37,05\r\n'), ...parser.end()];
    expect(records.map((record) => record.fields)).toEqual([
      ["name", "hourly_rate"],
      ["Lee; Ann", "37,05"],
    ]);
  });
});
