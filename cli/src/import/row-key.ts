// The item keys of imported rows (docs/cli.md), the same on every run of the same data.
import { createHash } from "node:crypto";
import { DigestTable } from "./digest-table.ts";

/**
 * The row's values by field as one unambiguous text, whatever order the columns come in: fields
 * sorted, every part length-prefixed (a CSV cell's text as it is; an NDJSON member's JSON with its
 * keys sorted).
 */
function contentText(content: Readonly<Record<string, unknown>>): string {
  let text = "";
  for (const field of Object.keys(content).sort()) {
    const value = content[field];
    const part = typeof value === "string" ? `s${value}` : `j${JSON.stringify(sortKeys(value))}`;
    text += `${field.length}:${field}${part.length}:${part}`;
  }
  return text;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}

/**
 * A row's key is a hash of the resource, the import's mode (create, upsert or update) and the row's content
 * (its values by field as the file gives them: key order, column order and the file's name do not
 * matter), then its occurrence among identical rows (the second of two identical rows is a record
 * of its own). Never its batch or its position: a re-run after Ctrl-C, a crash or a lost journal,
 * in batches of any composition, with other rows edited, added or removed meanwhile, carries the
 * same key for the same row, and the server writes it at most once. An edited row gets a new key.
 * The server keeps keys per company, for 24 hours.
 */
export class RowKeys {
  /** Content hash → identical rows seen so far (a table of typed arrays: every row has an entry). */
  readonly #seen = new DigestTable(1);
  readonly #prefix: string;

  constructor(resource: string, mode: "create" | "upsert" | "update") {
    this.#prefix = `${resource}\u0000${mode}\u0000`;
  }

  next(content: Readonly<Record<string, unknown>>): string {
    const digest = createHash("sha256")
      .update(this.#prefix + contentText(content))
      .digest();
    let slot = this.#seen.find(digest);
    if (slot < 0) slot = this.#seen.add(digest);
    const occurrence = this.#seen.value(slot, 0) + 1;
    this.#seen.set(slot, 0, occurrence);
    return `erp-row-${digest.toString("hex")}-${occurrence}`;
  }
}
