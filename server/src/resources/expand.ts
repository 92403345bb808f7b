// Embedded references (`expand=client,project.client`): each named reference of a record shown as
// the whole record it points at, read once per reference for a whole page (one statement with the
// page's ids, whatever its size), two levels at most; only records the caller may read
// (resources/visibility.ts): a path through a resource its token cannot read is 403.
import { and, eq, inArray } from "drizzle-orm";
import type { Executor } from "../db/client.ts";
import type { ResourceDefinition, StoredRecord } from "./definition.ts";
import { expandables, readableFieldNames } from "./fields.ts";
import { showRecords } from "./custom-fields.ts";
import { column, hasSoftDelete, selection, toRecord } from "./store.ts";
import type { ReadView } from "./visibility.ts";

/** A deleted record, embedded: its id and that it is gone. */
const deleted = (id: number) => ({ id, deleted: true });

/** Where embedded records come from: one company's records, as far as `view` may read them. */
interface Source {
  db: Executor;
  companyId: number;
  view: ReadView;
}

/** The company's records of `def` with these ids, deleted ones as `{id, deleted: true}`: one statement. */
async function embeddable(
  { db, companyId, view }: Source,
  def: ResourceDefinition,
  ids: number[],
): Promise<Map<number, StoredRecord | ReturnType<typeof deleted>>> {
  if (ids.length === 0) return new Map();
  const soft = hasSoftDelete(def.table);
  const shown = await view.of(def, companyId, db);
  const rows = await db
    .select(
      selection(def, [...shown.visible(readableFieldNames(def)), ...(soft ? ["deleted_at"] : [])]),
    )
    .from(def.table)
    .where(
      and(eq(column(def.table, "company_id"), companyId), inArray(column(def.table, "id"), ids)),
    );
  const records = rows.map(toRecord);
  await showRecords(db, companyId, def, records);
  return new Map(
    records.map((row) => {
      const { deleted_at, ...record } = row;
      shown.strip([record]);
      return [
        record.id as number,
        deleted_at ? deleted(record.id as number) : (record as StoredRecord),
      ];
    }),
  );
}

/** 403 insufficient_scope unless the caller may read every record `paths` would embed. */
function checkReadable(
  def: ResourceDefinition,
  paths: readonly (readonly string[])[],
  view: ReadView,
): void {
  for (const path of paths) {
    let from = def;
    for (const name of path) {
      const reference = expandables(from).find((one) => one.name === name);
      if (!reference) break;
      view.mustRead(reference.target);
      from = reference.target;
    }
  }
}

/**
 * Puts the records `paths` name into `records` (in place): `paths` as parsed, each a reference and
 * the references of it to embed in turn; refused first (403) when `view` may not read one of the
 * resources they pass through. Each reference costs one statement for all the records.
 */
export async function embedReferences(
  db: Executor,
  def: ResourceDefinition,
  companyId: number,
  records: StoredRecord[],
  paths: readonly (readonly string[])[],
  view: ReadView,
): Promise<void> {
  checkReadable(def, paths, view);
  await embed({ db, companyId, view }, def, records, paths);
}

async function embed(
  source: Source,
  def: ResourceDefinition,
  records: StoredRecord[],
  paths: readonly (readonly string[])[],
): Promise<void> {
  const byReference = new Map<string, string[][]>();
  for (const [first, ...rest] of paths) {
    const nested = byReference.get(first!) ?? [];
    if (rest.length > 0) nested.push(rest);
    byReference.set(first!, nested);
  }
  await Promise.all(
    expandables(def)
      .filter((reference) => byReference.has(reference.name))
      .map(async (reference) => {
        const ids = [
          ...new Set(
            records.map((record) => record[reference.field]).filter((id) => typeof id === "number"),
          ),
        ] as number[];
        const found = await embeddable(source, reference.target, ids);
        const nested = byReference.get(reference.name)!;
        if (nested.length > 0) {
          const live = [...found.values()].filter((record) => !("deleted" in record));
          await embed(source, reference.target, live as StoredRecord[], nested);
        }
        for (const record of records) {
          const id = record[reference.field];
          record[reference.name] = typeof id === "number" ? (found.get(id) ?? null) : null;
        }
      }),
  );
}
