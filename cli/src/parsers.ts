// Argument and option parsers: a bad value is a commander usage error (exit 2) before any request.
import { InvalidArgumentError } from "commander";

function integer(value: string, min: number, what: string): number {
  if (!/^\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
    throw new InvalidArgumentError(`expected ${what}, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

/** A record id or reference: a positive integer. */
export const parseId = (value: string): number => integer(value, 1, "a positive integer id");
/** A page size (the API caps it at 100). */
export const parseLimit = (value: string): number => integer(value, 1, "an integer of at least 1");
/** A start position. */
export const parseOffset = (value: string): number => integer(value, 0, "an integer of at least 0");
/** How many requests run at once. */
export const parseConcurrency = (value: string): number => {
  const n = integer(value, 1, "an integer from 1 to 64");
  if (n > 64) throw new InvalidArgumentError(`expected an integer from 1 to 64, got ${n}`);
  return n;
};

/** `--fields a,b` → `["a", "b"]`. */
export function parseFields(value: string): string[] {
  const fields = value
    .split(",")
    .map((field) => field.trim())
    .filter(Boolean);
  if (fields.length === 0)
    throw new InvalidArgumentError("expected a comma-separated list of field names");
  return fields;
}

/** One of a fixed set of words. */
export function oneOf<T extends string>(choices: readonly T[]): (value: string) => T {
  return (value) => {
    if ((choices as readonly string[]).includes(value)) return value as T;
    throw new InvalidArgumentError(
      `expected one of ${choices.join(", ")}, got ${JSON.stringify(value)}`,
    );
  };
}
