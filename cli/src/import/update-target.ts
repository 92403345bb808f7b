// `erp import --update`: each CSV or workbook row names its record by the `id` column (and, with
// --if-unmodified, the version it was read at by `updated_at`); its empty cells empty their fields.
// The SDK's import sends only the fields that differ from the record (docs/bulk-work.md).
import { type Column, normalizeHeader } from "./columns.ts";
import type { Row } from "./rows.ts";
import { isEmptyCell, textOf } from "./values.ts";

type Json = Record<string, unknown>;

/** What a CSV file must have for an update import, or the sentence that says what is missing. */
export function missingUpdateColumns(
  header: readonly string[] | undefined,
  ifUnmodified: boolean,
): string | undefined {
  const names = header?.map(normalizeHeader);
  if (!names) return undefined;
  if (!names.includes("id"))
    return "--update needs an id column naming the record each row updates (erp export writes one)";
  if (ifUnmodified && !names.includes("updated_at"))
    return "--if-unmodified needs an updated_at column (erp export writes one)";
  return undefined;
}

export class UpdateTarget {
  readonly #ifUnmodified: boolean;
  readonly #columns: readonly Column[];
  /** Where the file has its `id` and `updated_at` columns. */
  readonly #idColumn: number;
  readonly #stampColumn: number;

  constructor(
    header: readonly string[] | undefined,
    columns: readonly Column[] | undefined,
    ifUnmodified: boolean,
  ) {
    this.#columns = columns ?? [];
    this.#ifUnmodified = ifUnmodified;
    const names = (header ?? []).map(normalizeHeader);
    this.#idColumn = names.indexOf("id");
    this.#stampColumn = names.indexOf("updated_at");
  }

  /** The members of a row of cells that name its record (and, with --if-unmodified, the version it was read at). */
  target(row: Row): Json {
    const cell = (index: number) => {
      const value = row.cells?.[index];
      return value === undefined ? undefined : textOf(value).trim();
    };
    const id = cell(this.#idColumn);
    return {
      id: typeof id === "string" && /^\d+$/.test(id) ? Number(id) : (id ?? null),
      // A row without one is refused by the API (422), not updated unconditionally.
      ...(this.#ifUnmodified ? { if_match: cell(this.#stampColumn) ?? "" } : {}),
    };
  }

  /** An NDJSON line as an SDK update row: its `updated_at` is the version to match, with --if-unmodified. */
  object(object: Readonly<Json>): Json {
    return this.#ifUnmodified ? { ...object, if_match: String(object.updated_at ?? "") } : object;
  }

  /** A row's empty cells: in an update the field is to be empty (and is sent if it is not). */
  emptied(row: Row): Json {
    const empty: Json = {};
    this.#columns.forEach((column, index) => {
      if (column.kind !== "skipped" && isEmptyCell(row.cells?.[index] ?? ""))
        empty[column.field] = null;
    });
    return empty;
  }
}
