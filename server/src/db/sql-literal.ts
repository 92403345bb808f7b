// Values written into a write's text (db/write-transaction.ts sends a whole transaction as one text).
// A batch's rows, events and keys are built as `(…), (…)` text directly, and the few placeholders
// of the other statements are filled in here, without the driver's scan of a large text. Escaping
// is the driver's for the backslash-escape mode every connection uses: a backslash, a quote, NUL
// and Ctrl-Z are escaped; other characters, line breaks and double quotes (JSON is full of them)
// are valid as they are inside a single-quoted literal.
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL and Ctrl-Z are what must be escaped
const SPECIAL = /[\0\x1a'\\]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above
const SPECIALS = /[\0\x1a'\\]/g;
const ESCAPES: Record<string, string> = { "\0": "\\0", "\x1a": "\\Z", "'": "\\'", "\\": "\\\\" };

export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  switch (typeof value) {
    case "number":
      if (!Number.isFinite(value)) throw new Error("a statement value must be a finite number");
      return String(value);
    case "bigint":
      return String(value);
    case "boolean":
      return value ? "TRUE" : "FALSE";
    case "string":
      return SPECIAL.test(value)
        ? `'${value.replace(SPECIALS, (char) => ESCAPES[char]!)}'`
        : `'${value}'`;
    default:
      if (value instanceof Uint8Array) return `X'${Buffer.from(value).toString("hex")}'`;
      // A list fills an IN (?): its values, comma-separated.
      if (Array.isArray(value)) return value.map(sqlLiteral).join(", ");
      throw new Error(`a statement value cannot be a ${typeof value}`);
  }
}

/** `(a, b), (c, d)`: each row's values as literals. */
export function sqlRows(rows: readonly (readonly unknown[])[]): string {
  return rows.map((row) => `(${row.map(sqlLiteral).join(", ")})`).join(", ");
}

/** A text's `?` placeholders filled in with its values, in order (none of our texts has a `?` of its own). */
export function fillPlaceholders(text: string, values: readonly unknown[]): string {
  const parts = text.split("?");
  if (parts.length - 1 !== values.length)
    throw new Error(`a statement has ${parts.length - 1} placeholders and ${values.length} values`);
  let filled = parts[0]!;
  for (let index = 0; index < values.length; index++)
    filled += sqlLiteral(values[index]) + parts[index + 1]!;
  return filled;
}
