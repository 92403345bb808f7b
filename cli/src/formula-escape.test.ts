// CSV cells a spreadsheet would run as a formula get a leading ', and come back as they were.
import { expect, test } from "bun:test";
import { escapeFormula, unescapeFormula } from "./formula-escape.ts";

test("=, +, -, @, tab and CR lead a cell that is escaped; plain numbers and other text are not", () => {
  expect(
    ["=1+1", "+2+3", "-4+5", "@SUM(6,7)", "=cmd|' /C calc'!A0", "\tx", "\rx"].map(escapeFormula),
  ).toEqual(["'=1+1", "'+2+3", "'-4+5", "'@SUM(6,7)", "'=cmd|' /C calc'!A0", "'\tx", "'\rx"]);
  for (const plain of ["-12.50", "+3", "42", "Ann", "", "'quoted", "a=b", "2024-01-02"])
    expect(escapeFormula(plain)).toBe(plain);
});

test("every text comes back as it was, escaped ones and ones that look escaped alike", () => {
  const texts = [
    "=1+1",
    "'=1+1",
    "''=1+1",
    "-12.50",
    "'-12.50",
    "'-5",
    "+1 555 0100",
    "'x",
    "@",
    "'",
  ];
  for (const text of texts) expect(unescapeFormula(escapeFormula(text))).toBe(text);
  // A cell typed with an apostrophe before a plain number was never escaped: it stays as typed.
  expect(unescapeFormula("'-12.50")).toBe("'-12.50");
});
