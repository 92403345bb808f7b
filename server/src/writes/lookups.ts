// What a set of record writes needs from the database, read as sets in one round trip, whatever
// the number of writes: the referenced records (share-locked, so a concurrent delete waits for
// this write or is seen by it), the live records holding the unique values the writes use (for
// upserts, PATCHes and updates by id the records themselves, locked for update: a write that
// changed one since is waited for, and on a cluster one that commits first on another node aborts
// this transaction, which runs again and reads it), the quota counter when the plan limits it
// (locked: concurrent creates queue on it), and the batch item keys already bound.
//
// A write that needs no lock (it names no reference and creates nothing a quota limits) reads
// outside its transaction instead, on the read pool: its records' updates are then guarded by the
// version read (writes/row-versions.ts), a unique value taken meanwhile fails its commit as a
// duplicate, and with nothing read in its transaction it joins its company's group commit.
import { getTableName } from "drizzle-orm";
import type { MySqlColumn } from "drizzle-orm/mysql-core";
import type { Company } from "../auth/company.ts";
import type { Statement } from "../db/write-transaction.ts";
import type { ResourceDefinition, ResourceTable, StoredRecord } from "../resources/definition.ts";
import {
  hasTimestamps,
  readableFieldNames,
  referenceFields,
  uniqueFields,
} from "../resources/fields.ts";
import { caselessKey, isCaseless } from "../resources/caseless.ts";
import { countedOf } from "../resources/live-total.ts";
import { column, hasSoftDelete, recordFromRow } from "../resources/store.ts";
import { liveCountRead, startLiveCount } from "../db/company-counters.ts";
import { UniqueValues } from "./unique-values.ts";
import {
  type CustomField,
  customFieldOf,
  customUniqueName,
  INDEXED_TEXT_LENGTH,
  indexColumnOf,
  normalizeDecimal,
  shownValues,
  uniqueTextOf,
} from "../resources/custom-fields.ts";
import { boundItemKeys, type BoundKey } from "./item-keys.ts";
import type { Reads } from "./outside-reads.ts";

export interface LookupRequest {
  def: ResourceDefinition;
  company: Company;
  dryRun: boolean;
  /** Read outside the write's transaction: nothing is locked (see above). */
  outside?: boolean;
  /** The bodies about to be written (creates, or fields of updates). */
  bodies: readonly unknown[];
  /** Read-only references every write carries (a rental's equipment, from the path). */
  fixed?: Record<string, unknown>;
  /** Upserts: the live records with these external ids, whole and locked for update. */
  externalIds?: readonly string[];
  /** A PATCH: this live record (of this parent, for a sub-collection), whole and locked for update. */
  recordId?: number;
  /** Updates by id (a batch's `operation: "update"`): these live records, whole and locked for update. */
  recordIds?: readonly number[];
  parentId?: number;
  /** Creates may happen: read (and for a real write lock) the quota counter of a limited plan. */
  creates: boolean;
  itemKeys?: readonly string[];
}

export interface Lookups {
  /** A referenced live record of the company (with its status), or undefined. */
  reference(table: ResourceTable, id: number): { status?: unknown } | undefined;
  /** Holders of the unique values the writes use, as the database has them. */
  unique: UniqueValues;
  /** Upserts: the live records by external id; a PATCH and updates by id: the records by id. */
  records: Map<string | number, StoredRecord>;
  /** Live records counted against a limited quota (undefined when the plan does not limit it). */
  quotaUsed: number | undefined;
  boundKeys: Map<string, BoundKey>;
  /** The company's own fields of the resource, in their order (resources/custom-fields.ts). */
  customFields: CustomField[];
}

type Row = Record<string, unknown>;

const quote = (name: string): string => `\`${name}\``;

const isId = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 1;

const fieldsOf = (body: unknown): Record<string, unknown> =>
  typeof body === "object" && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};

const columnsOf = new Map<ResourceDefinition, [string, MySqlColumn][]>();
const selectedOf = new Map<ResourceDefinition, string>();

/** A resource's readable fields and their columns (derived once per definition). */
function recordColumns(def: ResourceDefinition): [string, MySqlColumn][] {
  let columns = columnsOf.get(def);
  if (!columns) {
    columns = readableFieldNames(def).map((name): [string, MySqlColumn] => [
      name,
      column(def.table, name),
    ]);
    columnsOf.set(def, columns);
  }
  return columns;
}

/** The whole-record SELECT of a resource, its columns named as the API names its fields. */
function selectRecords(
  def: ResourceDefinition,
  where: string,
  values: unknown[],
  lock: string,
): Statement {
  let selected = selectedOf.get(def);
  if (selected === undefined) {
    const columns = recordColumns(def)
      .map(([name, col]) => `${quote(col.name)} AS ${quote(name)}`)
      .join(", ");
    const live = hasSoftDelete(def.table) ? " AND deleted_at IS NULL" : "";
    selected = `SELECT ${columns} FROM ${quote(getTableName(def.table))} WHERE company_id = ?${live}`;
    selectedOf.set(def, selected);
  }
  return { text: `${selected} AND (${where})${lock}`, values };
}

/** A row of selectRecords as the API shows the record (the text protocol's values mapped as drizzle maps them). */
export function toStoredRecord(def: ResourceDefinition, row: Row): StoredRecord {
  return recordFromRow(recordColumns(def), row);
}

/**
 * True when the writes may decide on a read outside their transaction: their resource keeps a
 * version (updated_at), they set no reference, and no plan quota limits a create among them.
 */
export function readableOutside(
  request: Pick<LookupRequest, "def" | "company" | "bodies" | "fixed" | "creates">,
): boolean {
  const { def, company } = request;
  if (!hasTimestamps(def)) return false;
  if (request.creates && def.quota !== undefined && company.limits[def.quota] !== null)
    return false;
  const bodies = [...request.bodies.map(fieldsOf), request.fixed ?? {}];
  for (const [name] of referenceFields(def))
    if (bodies.some((body) => body[name] !== undefined && body[name] !== null)) return false;
  return true;
}

export async function lookUp(tx: Reads, request: LookupRequest): Promise<Lookups> {
  const { def, company } = request;
  const bodies = request.bodies.map(fieldsOf);
  const statements: Statement[] = [];
  const readers: ((rows: Row[]) => void)[] = [];
  const read = (statement: Statement, reader: (rows: Row[]) => void): void => {
    statements.push(statement);
    readers.push(reader);
  };
  const locks = !request.dryRun && !request.outside;
  const share = locks ? " LOCK IN SHARE MODE" : "";
  const update = locks ? " FOR UPDATE" : "";

  // Referenced records, one SELECT per referenced table.
  const wanted = new Map<ResourceTable, { ids: Set<number>; status: boolean }>();
  for (const [name, spec] of referenceFields(def)) {
    const target = spec.target;
    if (!company.addons.has(target.addon)) continue;
    const ids = [...bodies.map((body) => body[name]), request.fixed?.[name]].filter(isId);
    if (ids.length === 0) continue;
    const entry = wanted.get(target.table) ?? { ids: new Set<number>(), status: false };
    for (const id of ids) entry.ids.add(id);
    entry.status ||= Boolean(spec.requiredStatus || spec.refusedStatus);
    wanted.set(target.table, entry);
  }
  const references = new Map<ResourceTable, Map<number, { status?: unknown }>>();
  for (const [table, { ids, status }] of wanted) {
    const found = new Map<number, { status?: unknown }>();
    references.set(table, found);
    const live = hasSoftDelete(table) ? " AND deleted_at IS NULL" : "";
    read(
      {
        text:
          `SELECT id${status ? ", status" : ""} FROM ${quote(getTableName(table))} WHERE ` +
          `company_id = ? AND id IN (?)${live}${share}`,
        values: [company.id, [...ids]],
      },
      (rows) => {
        for (const row of rows) found.set(Number(row.id), status ? { status: row.status } : {});
      },
    );
  }

  // Live records holding the unique values used; upserts and PATCHes read their records whole.
  const unique = new UniqueValues(def);
  const records = new Map<string | number, StoredRecord>();
  const conditions: string[] = [];
  const values: unknown[] = [company.id];
  for (const field of uniqueFields(def)) {
    // A caseless field (a lookup's name) is found by its key column, in its key's form.
    const caseless = isCaseless(def.fields[field]);
    const used = [
      ...new Set(
        [
          ...bodies.map((body) => body[field]),
          ...(field === "external_id" ? (request.externalIds ?? []) : []),
        ]
          .filter((value) => typeof value === "string")
          .map((value) => (caseless ? caselessKey(value) : value)),
      ),
    ];
    if (used.length === 0) continue;
    const compared = column(def.table, caseless ? `${field}_key` : field);
    conditions.push(`${quote(compared.name)} IN (?)`);
    values.push(used);
  }
  if (request.recordId !== undefined) {
    const parent = def.parent && request.parentId !== undefined ? def.parent : undefined;
    conditions.push(
      parent ? `(id = ? AND ${quote(column(def.table, parent.column).name)} = ?)` : "id = ?",
    );
    values.push(request.recordId, ...(parent ? [request.parentId] : []));
  }
  const byId = new Set(request.recordIds ?? []);
  if (byId.size > 0) {
    conditions.push("id IN (?)");
    values.push([...byId]);
  }
  const locked = request.externalIds || request.recordId !== undefined || byId.size > 0;
  const readRecords = (rows: Row[]): void => {
    for (const row of rows) {
      const record = toStoredRecord(def, row);
      for (const field of uniqueFields(def)) unique.take(field, record[field], { id: record.id });
      if (request.recordId === record.id || byId.has(record.id)) records.set(record.id, record);
      if (request.externalIds && typeof record.external_id === "string")
        records.set(record.external_id, record);
    }
  };
  // One record by id and nothing else of it, outside a transaction: read with others' (outside-reads.ts).
  let recordById: Promise<Row | undefined> | undefined;
  if (conditions.length === 1 && request.recordId !== undefined && values.length === 2 && tx.byId)
    recordById = tx.byId(`${company.id}:${def.name}`, request.recordId, (ids) =>
      selectRecords(def, "id IN (?)", [company.id, ids], ""),
    );
  else if (conditions.length > 0)
    read(selectRecords(def, conditions.join(" OR "), values, locked ? update : ""), readRecords);

  // The quota counter of a limited plan; a company from before counters gets one first.
  let quotaUsed: number | undefined;
  const limited = request.creates && def.quota !== undefined && company.limits[def.quota] !== null;
  let counterMissing = false;
  if (limited) {
    read(liveCountRead(company.id, countedOf(def), locks), (rows) => {
      if (rows[0]) quotaUsed = Number(rows[0].value);
      else counterMissing = true;
    });
  }

  const custom = readCustomOf(request, share, read);

  let boundKeys = new Map<string, BoundKey>();
  if (request.itemKeys && request.itemKeys.length > 0) {
    const statement = boundItemKeys(company.id, request.itemKeys);
    read(statement.statement, (rows) => {
      boundKeys = statement.read(rows);
    });
  }

  const [results, row] = await Promise.all([tx.run(statements), recordById]);
  for (const [index, rows] of results.entries()) readers[index]!(rows as Row[]);
  if (row) readRecords([row]);
  await readCustomHolders(tx, request, bodies, custom.fields, share, unique);
  for (const record of records.values())
    if (hasCustomFields(def))
      record.custom_fields = shownValues(custom.fields, record.custom_fields);
  if (counterMissing) {
    const [, rows] = await tx.run([
      startLiveCount(company.id, countedOf(def)),
      liveCountRead(company.id, countedOf(def), locks),
    ]);
    quotaUsed = Number((rows as Row[])[0]?.value ?? 0);
  }
  return {
    reference: (table, id) => references.get(table)?.get(id),
    unique,
    records,
    quotaUsed,
    boundKeys,
    customFields: custom.fields,
  };
}

const hasCustomFields = (def: ResourceDefinition): boolean =>
  Object.hasOwn(def.table, "custom_fields");

/**
 * The company's own fields of the resource (share-locked in a locking write: a definition's change
 * waits for it).
 */
function readCustomOf(
  request: LookupRequest,
  share: string,
  read: (statement: Statement, reader: (rows: Row[]) => void) => void,
): { fields: CustomField[] } {
  const found = { fields: [] as CustomField[] };
  const { def, company } = request;
  if (!hasCustomFields(def)) return found;
  read(
    {
      text: `SELECT * FROM custom_fields WHERE company_id = ? AND resource = ? ORDER BY id${share}`,
      values: [company.id, def.name],
    },
    (rows) => {
      found.fields = rows.map(customFieldOf);
    },
  );
  return found;
}

/** The values the bodies send for `field`, as its index column holds them (others are never held). */
function sentValues(bodies: readonly Record<string, unknown>[], field: CustomField): unknown[] {
  const sent = bodies.flatMap((body) => {
    const values = body.custom_fields;
    if (typeof values !== "object" || values === null) return [];
    const value = (values as Record<string, unknown>)[field.key];
    if (field.type === "text" || field.type === "select")
      return typeof value === "string" ? [[...value].slice(0, INDEXED_TEXT_LENGTH).join("")] : [];
    if (field.type === "date")
      return typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value) ? [value] : [];
    return normalizeDecimal(value) ?? [];
  });
  return [...new Set(sent)];
}

/**
 * After the fields are read: the live records holding the values the bodies send for unique ones,
 * which `unique` then holds under `custom_fields.<key>` (compared as uniqueTextOf makes them). One
 * statement per unique field sent, reading its value's index (company_id, field_id, value); none
 * when no unique field is sent. (One statement for every sent value, made before the fields were
 * known, cost a create without unique fields a millisecond, and with one joined each of its values
 * to its record: seconds a write on 200,000 records; bench/custom-fields.ts.)
 */
async function readCustomHolders(
  tx: Reads,
  request: LookupRequest,
  bodies: readonly Record<string, unknown>[],
  fields: readonly CustomField[],
  share: string,
  unique: UniqueValues,
): Promise<void> {
  const { def, company } = request;
  const reads = fields.flatMap((field) => {
    const values = field.unique ? sentValues(bodies, field) : [];
    if (values.length === 0) return [];
    const statement: Statement = {
      text:
        `SELECT r.id, r.custom_fields FROM custom_field_values v JOIN ${quote(getTableName(def.table))} ` +
        "r ON r.company_id = v.company_id AND r.id = v.record_id AND r.deleted_at IS NULL WHERE " +
        `v.company_id = ? AND v.field_id = ? AND v.${indexColumnOf(field.type)} IN (?)${share}`,
      values: [company.id, field.id, values],
    };
    return [{ field, statement }];
  });
  if (reads.length === 0) return;
  const results = await tx.run(reads.map((one) => one.statement));
  for (const [index, rows] of results.entries()) {
    const { field } = reads[index]!;
    for (const row of rows as Row[]) {
      const values = JSON.parse(String(row.custom_fields ?? "{}")) as Record<string, unknown>;
      unique.take(customUniqueName(field.key), uniqueTextOf(field, values[field.key]), {
        id: Number(row.id),
      });
    }
  }
}

/** What a restore reads before its checks: the records it names and what comes back with them. */
export interface Restorable {
  /** The records by id, deleted or live (locked for update); `deleted` false for a live one. */
  records: Map<number, { record: StoredRecord; deleted: boolean }>;
  /**
   * Per cascading dependent (a piece of equipment's unbilled rentals): the records deleted together
   * with each named record (the same deleted_at) whose other references are live, by that record's id.
   */
  dependents: { def: ResourceDefinition; byParent: Map<number, StoredRecord[]> }[];
}

/**
 * The records a restore names, deleted or not, and the records deleted together with them, in one
 * round trip. A dependent whose other reference was deleted since (a rental's project) stays
 * deleted: it would come back pointing at a record the API no longer shows.
 */
export async function readRestorable(
  tx: Reads,
  def: ResourceDefinition,
  companyId: number,
  ids: readonly number[],
  dryRun: boolean,
): Promise<Restorable> {
  const records: Restorable["records"] = new Map();
  if (ids.length === 0) return { records, dependents: [] };
  const lock = dryRun ? "" : " FOR UPDATE";
  const qualified = (alias: string, of: ResourceDefinition): string =>
    recordColumns(of)
      .map(([name, col]) => `${alias}.${quote(col.name)} AS ${quote(name)}`)
      .join(", ");
  const table = quote(getTableName(def.table));
  const statements: Statement[] = [
    {
      text:
        `SELECT ${qualified("r", def)}, r.deleted_at IS NOT NULL AS deleted_ FROM ${table} ` +
        `r WHERE r.company_id = ? AND r.id IN (?)${lock}`,
      values: [companyId, [...ids]],
    },
  ];
  const cascades = def.dependents.filter((dependent) => dependent.effect === "cascade");
  for (const dependent of cascades) {
    const of = dependent.resource;
    const parentColumn = quote(column(of.table, dependent.column).name);
    const othersLive = [...referenceFields(of)]
      .filter(([name, spec]) => name !== dependent.column && hasSoftDelete(spec.target.table))
      .map(([name, spec]) => {
        const col = `d.${quote(column(of.table, name).name)}`;
        return (
          ` AND (${col} IS NULL OR EXISTS (SELECT 1 FROM ` +
          `${quote(getTableName(spec.target.table))} t WHERE t.company_id = d.company_id AND ` +
          `t.id = ${col} AND t.deleted_at IS NULL))`
        );
      })
      .join("");
    statements.push({
      text:
        `SELECT ${qualified("d", of)}, d.${parentColumn} AS parent_ FROM ` +
        `${quote(getTableName(of.table))} d JOIN ${table} p ON p.company_id = d.company_id ` +
        `AND p.id = d.${parentColumn} AND d.deleted_at = p.deleted_at WHERE d.company_id = ? ` +
        `AND p.id IN (?)${othersLive}${lock}`,
      values: [companyId, [...ids]],
    });
  }
  const [found, ...dependentRows] = (await tx.run(statements)) as Row[][];
  for (const row of found!)
    records.set(Number(row.id), {
      record: toStoredRecord(def, row),
      deleted: Number(row.deleted_) === 1,
    });
  const dependents = cascades.map((dependent, index) => {
    const byParent = new Map<number, StoredRecord[]>();
    for (const row of dependentRows[index]!) {
      const parent = Number(row.parent_);
      byParent.set(parent, [
        ...(byParent.get(parent) ?? []),
        toStoredRecord(dependent.resource, row),
      ]);
    }
    return { def: dependent.resource, byParent };
  });
  return { records, dependents };
}
