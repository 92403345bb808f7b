// The checks of single values that built-in and custom fields share (validation.ts,
// custom-fields.ts): lengths in characters, calendar dates, money.

const MONEY_TEXT = /^[0-9]{1,12}(\.[0-9]{1,2})?$/;
const MONEY_MAX = 999_999_999_999.99;
const DATE_TEXT = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

/** Length in characters (code points), as JSON Schema's maxLength counts: 😀 is one. */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** A date written YYYY-MM-DD that exists (not 2025-02-30), years 1000-9999. */
export function isCalendarDate(value: string): boolean {
  if (!DATE_TEXT.test(value) || value < "1000") return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
}

/** Money in, its 2-decimal string out; undefined when it is not an amount the column holds. */
export function normalizeMoney(value: unknown): string | undefined {
  if (typeof value === "string") {
    if (!MONEY_TEXT.test(value)) return undefined;
    const [whole = "0", fraction = ""] = value.split(".");
    return `${BigInt(whole)}.${fraction.padEnd(2, "0")}`;
  }
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > MONEY_MAX)
    return undefined;
  if (Math.round(value * 100) / 100 !== value) return undefined;
  return value.toFixed(2);
}
