// `erp import --update`: each row names a record by its `id` column and sends only the cells that
// differ from the record as it is now, so an export edited in a spreadsheet changes exactly the
// edited records and a row that matches its record is not sent at all (no write, no event). The
// records of a batch are read before it goes, in pages of the collection on after_id: an export's
// rows come in id order, so a batch of 500 rows costs about five reads.
import type { CollectionSpec } from "@erp/sdk";
import type { AnyResourceClient } from "../resources.ts";
import { type Column, normalizeHeader } from "./columns.ts";
import type { Row } from "./rows.ts";
import { isEmptyCell, textOf } from "./values.ts";

/** Records a page of the collection holds at most. */
const PAGE = 100;

type Json = Record<string, unknown>;

/** A row of an update import: its values by field, with `id` (and `if_match`) among them. */
export interface UpdateItem {
  body: Json;
}

/** Whether a sent value is the stored one: money and ids compare as numbers (`45` is `"45.00"`). */
function same(hint: string | undefined, sent: unknown, stored: unknown): boolean {
  const empty = (value: unknown) => value === null || value === undefined || value === "";
  if (empty(sent) || empty(stored)) return empty(sent) && empty(stored);
  if (String(sent) === String(stored)) return true;
  const numeric = hint === "id" || hint?.startsWith("amount") === true;
  const number = /^-?\d+(\.\d+)?$/;
  return (
    numeric &&
    number.test(String(sent)) &&
    number.test(String(stored)) &&
    Number(sent) === Number(stored)
  );
}

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

export class RecordDiff {
  readonly #client: AnyResourceClient;
  readonly #spec: CollectionSpec;
  readonly #ifUnmodified: boolean;
  readonly #columns: readonly Column[];
  /** Where a CSV file has its `id` and `updated_at` columns. */
  readonly #idColumn: number;
  readonly #stampColumn: number;

  constructor(
    client: AnyResourceClient,
    spec: CollectionSpec,
    header: readonly string[] | undefined,
    columns: readonly Column[] | undefined,
    ifUnmodified: boolean,
  ) {
    this.#client = client;
    this.#columns = columns ?? [];
    this.#spec = spec;
    this.#ifUnmodified = ifUnmodified;
    const names = (header ?? []).map(normalizeHeader);
    this.#idColumn = names.indexOf("id");
    this.#stampColumn = names.indexOf("updated_at");
  }

  /** The members of a row that name its record (and, with --if-unmodified, the version it was read at). */
  target(row: Row): Json {
    const cell = (index: number) => {
      const value = row.cells?.[index];
      return value === undefined ? undefined : textOf(value).trim();
    };
    const id = row.object ? row.object.id : cell(this.#idColumn);
    const stamp = row.object ? row.object.updated_at : cell(this.#stampColumn);
    return {
      id: typeof id === "string" && /^\d+$/.test(id) ? Number(id) : (id ?? null),
      // A row without one is refused by the API (422), not updated unconditionally.
      ...(this.#ifUnmodified ? { if_match: String(stamp ?? "") } : {}),
    };
  }

  /** A CSV row's empty cells: in an update the field is to be empty (and is sent if it is not). */
  emptied(row: Row): Json {
    const empty: Json = {};
    this.#columns.forEach((column, index) => {
      if (column.kind !== "skipped" && isEmptyCell(row.cells?.[index] ?? ""))
        empty[column.field] = null;
    });
    return empty;
  }

  /**
   * Narrows each item's body to its id, if_match and the fields that differ from the record; the
   * indexes of the items that differ in nothing (not to be sent) come back. An item whose record
   * is not found is sent whole: the API refuses it (404). Items of the same record are diffed in
   * order, each against the record as the ones before it leave it.
   */
  async narrow(items: readonly UpdateItem[]): Promise<Set<number>> {
    const records = await this.#read(
      items.flatMap(({ body }) => (typeof body.id === "number" ? [body.id] : [])),
    );
    const hints = this.#spec.fields.update;
    const unchanged = new Set<number>();
    items.forEach((item, index) => {
      const { id, if_match: ifMatch, ...fields } = item.body;
      const record = typeof id === "number" ? records.get(id) : undefined;
      if (!record) return;
      const changed: Json = {};
      for (const [field, value] of Object.entries(fields))
        if (!same(hints[field], value, record[field])) changed[field] = value;
      if (Object.keys(changed).length === 0) unchanged.add(index);
      item.body = { id, ...(ifMatch === undefined ? {} : { if_match: ifMatch }), ...changed };
      Object.assign(record, changed);
    });
    return unchanged;
  }

  /** The live records with these ids, read in pages from each id not yet found. */
  async #read(ids: readonly number[]): Promise<Map<number, Json>> {
    const wanted = [...new Set(ids)].sort((a, b) => a - b);
    const found = new Map<number, Json>();
    let next = 0;
    while (next < wanted.length) {
      const page = await this.#client.listPage({
        after_id: wanted[next]! - 1,
        limit: PAGE,
        total: false,
      });
      const records = page.data as Json[];
      for (const record of records) found.set(Number(record.id), record);
      const last = records.length > 0 ? Number(records[records.length - 1]!.id) : Infinity;
      // Ids up to the page's last are settled (found, or not live); the next page starts at the first beyond it.
      while (next < wanted.length && wanted[next]! <= last) next++;
      if (records.length < PAGE) break;
    }
    return found;
  }
}
