// Cells as spreadsheets write them, read as the API wants the field's value.
import { describe, expect, test } from "bun:test";
import {
  type FieldKind,
  fieldKind,
  normalise,
  parseDateFormat,
  textOf,
  type ValueOptions,
} from "./values.ts";

const plain: ValueOptions = { decimalComma: false, dateFormat: undefined };
const comma: ValueOptions = { decimalComma: true, dateFormat: undefined };
const read = (cell: string | number | boolean | Date, kind: FieldKind, options = plain) =>
  normalise(cell, kind, options);

describe("amounts", () => {
  test("thousands separators, currency symbols and codes, signs", () => {
    expect(read("1,250.50", "amount")).toEqual({ value: "1250.50" });
    expect(read("1 250.50", "amount")).toEqual({ value: "1250.50" });
    expect(read("1\u00a0250.50", "amount")).toEqual({ value: "1250.50" });
    expect(read("1'250.50", "amount")).toEqual({ value: "1250.50" });
    expect(read(" 45 ", "amount")).toEqual({ value: "45" });
    expect(read("€45", "amount")).toEqual({ value: "45", currencies: ["EUR"] });
    expect(read("45 EUR", "amount")).toEqual({ value: "45", currencies: ["EUR"] });
    expect(read("45€", "amount")).toEqual({ value: "45", currencies: ["EUR"] });
    expect(read("$1,200", "amount")).toMatchObject({
      value: "1200",
      currencies: expect.arrayContaining(["USD", "CAD"]),
    });
    expect(read("US$1,200.5", "amount")).toEqual({ value: "1200.5", currencies: ["USD"] });
    expect(read("-€1,250.50", "amount")).toEqual({ value: "-1250.50", currencies: ["EUR"] });
    expect(read("(1,250.50)", "amount")).toEqual({ value: "-1250.50" });
    expect(read(".5", "amount")).toEqual({ value: "0.5" });
    expect(read(1250.5, "amount")).toEqual({ value: "1250.5" });
    expect(read(0.1 + 0.2, "amount")).toEqual({ value: "0.3" });
  });

  test("--decimal-comma", () => {
    expect(read("1.250,50", "amount", comma)).toEqual({ value: "1250.50" });
    expect(read("1 250,50 €", "amount", comma)).toEqual({ value: "1250.50", currencies: ["EUR"] });
    expect(read("12,5", "amount", comma)).toEqual({ value: "12.5" });
    expect(read("1,250", "amount", comma)).toEqual({ value: "1.250" });
    expect(read("1,250", "amount")).toEqual({ value: "1250" });
    expect(read("45.50", "amount", comma)).toHaveProperty("error");
    expect(read("1.250", "amount", comma)).toEqual({ value: "1250" });
  });

  test("what cannot be read says how to write it", () => {
    expect(read("12,5", "amount")).toEqual({
      error:
        'cannot read "12,5" as an amount: write it like 1250.50 or 1,250.50, or use --decimal-comma for 1.250,50',
    });
    expect(read("1,25,0", "amount")).toHaveProperty("error");
    expect(read("1.250.000", "amount")).toHaveProperty("error");
    expect(read("1,250.50", "amount", comma)).toHaveProperty("error");
    expect(read("abc", "amount")).toHaveProperty("error");
    expect(read("¤5", "amount")).toHaveProperty("error");
    expect(read("45 EUR", "integer")).toHaveProperty("error");
  });

  test("numbers and ids", () => {
    expect(read("1,250", "integer")).toEqual({ value: 1250 });
    expect(read("12.5", "integer")).toEqual({ error: '"12.5" is not a whole number' });
    expect(read("1,250.5", "number")).toEqual({ value: 1250.5 });
    expect(read("7", "id")).toEqual({ value: 7 });
  });
});

describe("dates", () => {
  const at = (layout: string): ValueOptions => ({
    decimalComma: false,
    dateFormat: parseDateFormat(layout),
  });

  test("ISO always; other layouts only as --date-format names them, with any separator", () => {
    expect(read("2024-03-15", "date")).toEqual({ value: "2024-03-15" });
    expect(read("2024-03-15 00:00:00", "date")).toEqual({ value: "2024-03-15" });
    expect(read("2024-03-15T00:00:00.000Z", "date")).toEqual({ value: "2024-03-15" });
    expect(read("2024-03-15 13:30", "date")).toHaveProperty("error");
    expect(read("15.03.2024", "date", at("DD.MM.YYYY"))).toEqual({ value: "2024-03-15" });
    expect(read("15/3/2024", "date", at("DD.MM.YYYY"))).toEqual({ value: "2024-03-15" });
    expect(read("2024-03-15", "date", at("DD.MM.YYYY"))).toEqual({ value: "2024-03-15" });
    expect(read("03/15/2024", "date", at("MM/DD/YYYY"))).toEqual({ value: "2024-03-15" });
    expect(read("2024/03/15", "date", at("YYYY/MM/DD"))).toEqual({ value: "2024-03-15" });
    expect(read("15-03-24", "date", at("DD-MM-YY"))).toEqual({ value: "2024-03-15" });
    expect(read("15-03-64", "date", at("DD-MM-YY"))).toEqual({ value: "1964-03-15" });
    expect(read(new Date(Date.UTC(2024, 2, 15)), "date")).toEqual({ value: "2024-03-15" });
  });

  test("never guessed: a date that is not ISO without --date-format names the flag", () => {
    const refused = read("15.03.2024", "date");
    expect(refused).toHaveProperty("error");
    expect((refused as { error: string }).error).toContain("--date-format");
    expect(read("03/15/2024", "date", at("DD/MM/YYYY"))).toEqual({
      error: '"03/15/2024" is no day of the calendar',
    });
    expect(read("15.03.24", "date", at("DD.MM.YYYY"))).toHaveProperty("error");
    expect(read("31.02.2024", "date", at("DD.MM.YYYY"))).toEqual({
      error: '"31.02.2024" is no day of the calendar',
    });
    expect(read("2024-02-30", "date")).toHaveProperty("error");
  });

  test("--date-format layouts", () => {
    expect(parseDateFormat("dd.mm.yyyy")).toEqual({
      text: "DD.MM.YYYY",
      order: ["D", "M", "Y"],
      yearDigits: 4,
    });
    expect(parseDateFormat("MM/DD/YY")).toMatchObject({ order: ["M", "D", "Y"], yearDigits: 2 });
    expect(parseDateFormat("YYYY.DD.MM")).toBeUndefined();
    expect(parseDateFormat("DD.MM/YYYY")).toBeUndefined();
    expect(parseDateFormat("DD.MM.MM")).toBeUndefined();
  });
});

test("booleans and text", () => {
  for (const yes of ["true", "YES", "Yes", "1"])
    expect(read(yes, "boolean")).toEqual({ value: true });
  for (const no of ["false", "No", "0"]) expect(read(no, "boolean")).toEqual({ value: false });
  expect(read("maybe", "boolean")).toHaveProperty("error");
  expect(read("  Ann Lee ", "text")).toEqual({ value: "Ann Lee" });
  expect(read(5550100, "text")).toEqual({ value: "5550100" });
});

test("a workbook's number in a currency format: an amount in that currency, a number as it is", () => {
  const options = { decimalComma: true, dateFormat: undefined };
  expect(normalise({ number: 1250.5, symbol: "€" }, "amount", options)).toEqual({
    value: "1250.5",
    currencies: ["EUR"],
  });
  expect(normalise({ number: -45, symbol: "EUR" }, "amount", options)).toEqual({
    value: "-45",
    currencies: ["EUR"],
  });
  expect(normalise({ number: 45, symbol: "kr" }, "amount", options)).toEqual({ value: "45" });
  expect(normalise({ number: 7, symbol: "$" }, "integer", options)).toEqual({ value: 7 });
  expect(textOf({ number: 0.1 + 0.2, symbol: "€" })).toBe("€0.3");
});

describe("kinds", () => {
  test("a field is read by its kind in the SDK's collection table, not by its hint", () => {
    expect(fieldKind("date")).toBe("date");
    expect(fieldKind("money")).toBe("amount");
    expect(fieldKind("reference")).toBe("id");
    expect(fieldKind("integer")).toBe("integer");
    expect(fieldKind("boolean")).toBe("boolean");
    for (const kind of ["text", "email", "enum", undefined] as const)
      expect(fieldKind(kind)).toBe("text");
  });
});
