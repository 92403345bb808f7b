// One page of a resource's list: its filters, offset or after_id paging, and its total.
import {
  and,
  asc,
  count,
  desc,
  eq,
  getTableName,
  gt,
  gte,
  inArray,
  isNotNull,
  isNull,
  lt,
  lte,
  or,
  sql,
  type SQL,
} from "drizzle-orm";
import type { MySqlColumn } from "drizzle-orm/mysql-core";
import type { Executor } from "../db/client.ts";
import { executePrepared, selectRows, unsignedInteger } from "../db/sql.ts";
import type { PageStart, SortPosition } from "../http/paging.ts";
import type { Range, RangeOperator, SortKey } from "../http/query.ts";
import { caselessKey, isCaseless } from "./caseless.ts";
import type { CustomField } from "./custom-fields.ts";
import {
  CUSTOM_SORT,
  type CustomFilter,
  customConditions,
  fitsSort,
  heldCount,
  indexColumn,
  sortColumn,
  valueIndexOf,
  sortedValues,
  sortJoin,
} from "./custom-lists.ts";
import { customFieldValues } from "../db/schema.ts";
import type { ResourceDefinition, StoredRecord } from "./definition.ts";
import { readableFieldNames, recordFields, uniqueFields } from "./fields.ts";
import { liveTotal } from "./live-total.ts";
import {
  column,
  recordFromRow,
  hasSoftDelete,
  scopeConditions,
  selection,
  toRecord,
  wholeRecordColumns,
  type Scope,
} from "./store.ts";

export type FilterValue = number | string | boolean | readonly string[];

export interface ListCriteria {
  limit: number;
  start: PageStart;
  /** Count the matching records (meta.total); false skips the count. */
  total: boolean;
  q?: string;
  /** The fields `q` searches: the definition's `search` fields the caller sees; all of them when absent. */
  search?: readonly string[];
  /** Equality filters; a list of values means any of them. */
  filters: Record<string, FilterValue>;
  /** Ranges on dates, money and timestamps: every bound given holds. */
  ranges?: Record<string, Range>;
  fields: readonly string[];
  /** Only records changed at or after this moment. */
  updatedSince?: Date;
  /** Deleted records too, each with its `deleted_at`. */
  includeDeleted?: boolean;
  /** The order (id ascending when absent); `id` breaks ties in the direction of the last key. */
  sort?: readonly SortKey[];
  /** Filters on custom fields, and the custom field a `cf.<key>` sort key names (custom-lists.ts). */
  custom?: { filters: readonly CustomFilter[]; sort?: CustomField };
}

export interface ListPage {
  rows: StoredRecord[];
  /** Left out when the criteria asked for no total. */
  total?: number;
  /** On an after_id page while more records follow: the after_id of the next page. */
  nextAfterId?: number;
  /** On a sorted or cursor page while more records follow: where the next page starts. */
  next?: SortPosition;
}

/** Nothing narrows the list but the company: its total is the company's live total. */
const isUnfiltered = (def: ResourceDefinition, criteria: ListCriteria): boolean =>
  !def.parent &&
  criteria.q === undefined &&
  Object.keys(criteria.filters).length === 0 &&
  Object.keys(criteria.ranges ?? {}).length === 0 &&
  criteria.updatedSince === undefined &&
  !criteria.includeDeleted &&
  (criteria.custom?.filters.length ?? 0) === 0;

/** The one custom-field filter that alone narrows a list of a table with `live`, if so (heldCount). */
function heldAlone(def: ResourceDefinition, criteria: ListCriteria): CustomFilter | undefined {
  const filters = criteria.custom?.filters ?? [];
  const only = isUnfiltered(def, { ...criteria, custom: undefined }) && filters.length === 1;
  return only && Object.hasOwn(def.table, "live") ? filters[0] : undefined;
}

const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/**
 * How a list of live records says so. `live` is 1 exactly while deleted_at is NULL, and the sort
 * indexes are (company_id, live, key) (db/schema.ts): a sorted list says `live = 1` alone, so the
 * index holds everything its page reads and seeks the cursor there. A range (in id order) and a
 * unique field's filter say both: the range's records are found in the key's sort index or, when
 * they are many, in id order on the primary key (the optimizer picks the cheaper); a unique field's
 * index is (company_id, field, live). Other filters say `deleted_at IS NULL` alone: their indexes
 * end with deleted_at, and `live` would turn the optimizer to the primary key.
 */
function liveSaid(def: ResourceDefinition, criteria: ListCriteria): "deleted_at" | "live" | "both" {
  if (criteria.includeDeleted || !Object.hasOwn(def.table, "live")) return "deleted_at";
  if (criteria.sort !== undefined || "after" in criteria.start) return "live";
  const ranged = Object.keys(criteria.ranges ?? {}).length > 0;
  const unique = Object.keys(criteria.filters).some((name) => uniqueFields(def).includes(name));
  return ranged || unique ? "both" : "deleted_at";
}

/** What narrows a list besides its paging and order: what a report (aggregates.ts) selects by too. */
export type ListFilters = Pick<
  ListCriteria,
  "q" | "search" | "filters" | "ranges" | "updatedSince" | "includeDeleted" | "custom"
>;

function listConditions(def: ResourceDefinition, scope: Scope, criteria: ListCriteria): SQL[] {
  return filterConditions(def, scope, criteria, liveSaid(def, criteria));
}

/**
 * The conditions of a list's filters, within the company (and a sub-collection's parent); `live`
 * says how live records are told apart (liveSaid): a statement names the one its index holds.
 */
export function filterConditions(
  def: ResourceDefinition,
  scope: Scope,
  criteria: ListFilters,
  live: "deleted_at" | "live" | "both",
): SQL[] {
  const conditions = scopeConditions(def, scope, criteria.includeDeleted || live === "live");
  if (live !== "deleted_at") conditions.push(eq(column(def.table, "live"), 1));
  if (criteria.updatedSince !== undefined)
    conditions.push(gte(column(def.table, "updated_at"), criteria.updatedSince));
  for (const [name, value] of Object.entries(criteria.filters)) {
    // A caseless field (a lookup's name) matches as its unique key does: by its key column.
    if (isCaseless(def.fields[name]) && typeof value === "string") {
      conditions.push(eq(column(def.table, `${name}_key`), caselessKey(value)));
      continue;
    }
    const target = column(def.table, name);
    if (!Array.isArray(value)) conditions.push(eq(target, value));
    else conditions.push(value.length === 1 ? eq(target, value[0]) : inArray(target, [...value]));
  }
  if (criteria.custom)
    conditions.push(
      ...customConditions(scope.companyId, column(def.table, "id"), criteria.custom.filters),
    );
  const compare = { gte, gt, lt, lte };
  for (const [name, range] of Object.entries(criteria.ranges ?? {}))
    for (const [operator, bound] of Object.entries(range) as [RangeOperator, unknown][])
      conditions.push(compare[operator](column(def.table, name), bound));
  const search = criteria.search ?? def.search;
  if (criteria.q !== undefined && def.search.length > 0) {
    const pattern = `%${escapeLike(criteria.q)}%`;
    // Unique values compare bytes (db/schema.ts), searches do not: each column is compared
    // under one case- and accent-insensitive collation, whatever its own.
    conditions.push(
      or(
        ...search.map(
          (name) => sql`${column(def.table, name)} COLLATE utf8mb4_unicode_ci LIKE ${pattern}`,
        ),
      ) ?? sql`FALSE`,
    );
  }
  return conditions;
}

/**
 * The page of an unfiltered list of whole records, as GET one reads: its text built once per
 * resource and sent as a prepared statement, binary rows. An offset page is the page after id 0
 * at that offset, so one text serves both kinds of paging, and an after_id page seeks on the
 * (company_id, id) primary key: its cost does not grow with its depth.
 */
const hotPages = new Map<ResourceDefinition, { text: string; fields: [string, MySqlColumn][] }>();

function hotPage(def: ResourceDefinition): { text: string; fields: [string, MySqlColumn][] } {
  let page = hotPages.get(def);
  if (!page) {
    const { list, fields } = wholeRecordColumns(def);
    const live = hasSoftDelete(def.table) ? " AND `deleted_at` IS NULL" : "";
    const text = `SELECT ${list} FROM \`${getTableName(def.table)}\`
      WHERE \`company_id\` = ?${live} AND \`id\` > ? ORDER BY \`id\` LIMIT ? OFFSET ?`;
    page = { text, fields };
    hotPages.set(def, page);
  }
  return page;
}

/** The keys a list is ordered by, ending with `id` (in the direction of the last key) unless a key is `id`. */
function orderKeys(criteria: ListCriteria): SortKey[] {
  const keys = [...(criteria.sort ?? [])];
  if (!keys.some((key) => key.field === "id"))
    keys.push({ field: "id", descending: keys.at(-1)?.descending ?? false });
  return keys;
}

/** The value a record's field is compared by in SQL: a timestamp as a Date, as drizzle binds it. */
function sqlValue(def: ResourceDefinition, field: string, value: unknown): unknown {
  if (CUSTOM_SORT.test(field)) return value;
  return value !== null && column(def.table, field).columnType === "MySqlDateTime"
    ? new Date(value as string)
    : value;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
const MONEY = /^-?\d{1,12}(\.\d{1,2})?$/;
const CURRENCY = /^[A-Z]{3}$/;

/** A day or moment that exists as written (not 2025-02-30): the date it parses to says it back. */
function exists(text: string): boolean {
  const at = Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text);
  return !Number.isNaN(at) && new Date(at).toISOString().slice(0, 10) === text.slice(0, 10);
}

const isId = (value: unknown): boolean =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0;

/** True when `value` is one a record's `field` may hold, as the API shows it. */
function fitsField(def: ResourceDefinition, field: string, value: unknown): boolean {
  if (value === null) return !column(def.table, field).notNull;
  if (field === "id") return isId(value);
  if (typeof value === "string" && (field === "created_at" || field === "updated_at"))
    return TIMESTAMP.test(value) && exists(value);
  const spec = recordFields(def).find(([name]) => name === field)?.[1];
  if (spec?.type === "ref") return isId(value);
  if (spec?.type === "boolean") return typeof value === "boolean";
  if (typeof value !== "string" || spec === undefined) return false;
  if (spec.type === "money") return MONEY.test(value);
  if (spec.type === "date") return DATE.test(value) && exists(value);
  if (spec.type === "enum") return spec.values.includes(value);
  if (spec.type === "currency") return CURRENCY.test(value);
  return [...value].length <= (spec.max ?? 65_535);
}

/**
 * Whether a cursor's values fit the sort's fields, one value each: what a page of the list could
 * have ended on. A cursor is the client's to send, so nothing else of it may reach a statement.
 */
export function sortValuesFit(
  def: ResourceDefinition,
  sort: readonly SortKey[],
  custom?: CustomField,
): (values: readonly unknown[]) => boolean {
  return (values) =>
    values.length === sort.length &&
    sort.every((key, index) =>
      CUSTOM_SORT.test(key.field)
        ? custom !== undefined && fitsSort(custom, values[index])
        : fitsField(def, key.field, values[index]),
    );
}

/** The column a list orders by for a sort key: the table's, or a custom field's value (custom-lists.ts). */
function keyColumn(def: ResourceDefinition, criteria: ListCriteria, field: string): MySqlColumn {
  return CUSTOM_SORT.test(field) && criteria.custom?.sort
    ? sortColumn(criteria.custom.sort)
    : column(def.table, field);
}

/**
 * The records after `position` in the order of `keys` (NULL sorts first ascending and last
 * descending, as MySQL orders): the first key's bound, which the index's range starts at, and the
 * exact lexicographic condition on (keys, id).
 */
function afterPosition(
  def: ResourceDefinition,
  criteria: ListCriteria,
  keys: SortKey[],
  position: SortPosition,
): SQL[] {
  // The cursor holds a value per sort key the list was given; the id that breaks ties follows them.
  const values = keys.map((key, index) =>
    sqlValue(def, key.field, index < position.values.length ? position.values[index] : position.id),
  );
  const at = keys.map((key, index) => ({
    column: keyColumn(def, criteria, key.field),
    descending: key.descending,
    value: values[index],
  }));
  const equal = ({ column: c, value }: (typeof at)[number]): SQL =>
    value === null ? isNull(c) : eq(c, value);
  const beyond = ({ column: c, descending, value }: (typeof at)[number]): SQL | undefined => {
    if (!descending) return value === null ? isNotNull(c) : gt(c, value);
    if (value === null) return undefined;
    return c.notNull ? lt(c, value) : or(lt(c, value), isNull(c));
  };
  const disjuncts = at.flatMap((key, index) => {
    const past = beyond(key);
    return past ? [and(...at.slice(0, index).map(equal), past)!] : [];
  });
  const first = at[0]!;
  const bound =
    first.value === null
      ? first.descending
        ? isNull(first.column)
        : undefined
      : first.descending
        ? first.column.notNull
          ? lte(first.column, first.value)
          : or(lte(first.column, first.value), isNull(first.column))
        : gte(first.column, first.value);
  return [...(bound ? [bound] : []), or(...disjuncts) ?? eq(column(def.table, "id"), -1)];
}

/** Where a row stands in a list sorted by `sort`: what the next page's cursor holds. */
function positionOf(sort: readonly SortKey[], row: StoredRecord): SortPosition {
  return { id: row.id, values: sort.map((key) => row[key.field] ?? null) };
}

async function pageRows(
  db: Executor,
  def: ResourceDefinition,
  scope: Scope,
  criteria: ListCriteria,
  take: number,
): Promise<StoredRecord[]> {
  const afterId = "afterId" in criteria.start ? criteria.start.afterId : 0;
  const offset = "offset" in criteria.start ? criteria.start.offset : 0;
  const sorted = criteria.sort !== undefined || "after" in criteria.start;
  if (
    !sorted &&
    isUnfiltered(def, criteria) &&
    criteria.fields.length === readableFieldNames(def).length
  ) {
    const page = hotPage(def);
    const rows = await executePrepared<Record<string, unknown>[]>(
      db,
      page.text,
      [scope.companyId, afterId, take, offset].map(unsignedInteger),
    );
    return rows.map((row) => recordFromRow(page.fields, row));
  }
  if (criteria.custom?.sort && offset === 0) {
    const phases = customSortPhases(db, def, scope, criteria);
    const rows: StoredRecord[] = [];
    for (const phase of phases) {
      if (phase.without && (await everyRecordHolds(db, def, scope, criteria))) continue;
      rows.push(...(await phase.read(take - rows.length)).map(toRecord));
      if (rows.length >= take) break;
    }
    return rows;
  }
  const rows = await pageQuery(db, def, scope, criteria, take);
  return rows.map(toRecord);
}

/**
 * Whether every live record of the company holds a value of the sort's field, so a page need not
 * look for the ones without: that search reads records until it finds a page of them, every
 * record when there are none (on a million records, past the request's database budget). Counted
 * in the index (heldCount) against the company's live total; not for a list with deleted records,
 * nor after a cursor among the records without a value (there are some).
 */
async function everyRecordHolds(
  db: Executor,
  def: ResourceDefinition,
  scope: Scope,
  criteria: ListCriteria,
): Promise<boolean> {
  const position = "after" in criteria.start ? criteria.start.after : undefined;
  if (criteria.includeDeleted || def.parent || !Object.hasOwn(def.table, "live")) return false;
  if (position !== undefined && position.values[0] === null) return false;
  const [held, live] = await Promise.all([
    heldTotal(db, def, scope, { field: criteria.custom!.sort! }),
    liveTotal(db, def, scope.companyId),
  ]);
  return held >= live;
}

/** How many live records of the company hold what `filter` asks, counted in the index (heldCount). */
async function heldTotal(
  db: Executor,
  def: ResourceDefinition,
  scope: Scope,
  filter: CustomFilter,
): Promise<number> {
  const query = heldCount(scope.companyId, getTableName(def.table), filter);
  const [row] = await selectRows<{ total: number | string }>(db, query);
  return Number(row?.total ?? 0);
}

/**
 * A page of a list sorted by a custom field (and paged on its cursors), in two phases each read in
 * an index's order: the records without a value in id order (primary key), and the records with one
 * in (value, id) order from the typed index (company_id, field_id, value, record_id), joined to their
 * rows. Ascending, the ones without come first (as NULL sorts); descending, last. A page starts in
 * the phase its cursor is in and reads on into the next while it has room: however deep the page,
 * it reads about its own rows (but for the search of the records without a value: everyRecordHolds).
 * Exported for the test that checks each phase with EXPLAIN.
 */
export function customSortPhases(
  db: Executor,
  def: ResourceDefinition,
  scope: Scope,
  criteria: ListCriteria,
): { without: boolean; read: (take: number) => Promise<Record<string, unknown>[]> }[] {
  const field = criteria.custom!.sort!;
  const descending = criteria.sort?.[0]?.descending ?? false;
  const name = `cf.${field.key}`;
  const position = "after" in criteria.start ? criteria.start.after : undefined;
  const atValue = position?.values[0] ?? null;
  const shown = criteria.includeDeleted ? [...criteria.fields, "deleted_at"] : criteria.fields;
  const read = selection(def, [...new Set(shown.filter((f) => !CUSTOM_SORT.test(f)))]);
  const id = column(def.table, "id");
  const held = customFieldValues;
  const value = indexColumn(field);
  const without = (take: number, after?: number) =>
    db
      .select({ ...read, [name]: sql<null>`NULL` })
      .from(def.table)
      .where(
        and(
          ...listConditions(def, scope, criteria),
          sql`NOT EXISTS (SELECT 1 FROM ${held} WHERE ${held.company_id} = ${scope.companyId}
            AND ${held.field_id} = ${field.id} AND ${held.record_id} = ${id})`,
          ...(after === undefined ? [] : [descending ? lt(id, after) : gt(id, after)]),
        ),
      )
      .orderBy(descending ? desc(id) : asc(id))
      .limit(take);
  const withValue = (take: number, after?: SortPosition) => {
    const beyond = descending ? lt : gt;
    const bound = descending ? lte : gte;
    const cursor =
      after === undefined
        ? []
        : [
            bound(value, after.values[0]),
            or(
              beyond(value, after.values[0]),
              and(eq(value, after.values[0]), beyond(held.record_id, after.id)),
            )!,
          ];
    // Named: on a million records, a cursor near the start of the values made MariaDB read the
    // company's records by the primary key, join each one's value and sort them all (a second a
    // page; the first walk of bench/custom-fields.ts), where the index reads the page's own rows.
    return db
      .select({ ...read, [name]: value })
      .from(held, { forceIndex: valueIndexOf(field) })
      .innerJoin(
        def.table,
        and(eq(column(def.table, "company_id"), held.company_id), eq(id, held.record_id)),
      )
      .where(
        and(
          eq(held.company_id, scope.companyId),
          eq(held.field_id, field.id),
          ...cursor,
          ...listConditions(def, scope, criteria),
        ),
      )
      .orderBy(
        ...(descending ? [desc(value), desc(held.record_id)] : [asc(value), asc(held.record_id)]),
      )
      .limit(take);
  };
  const nulls = {
    without: true,
    read: (take: number) =>
      without(take, position !== undefined && atValue === null ? position.id : undefined),
  };
  const values = {
    without: false,
    read: (take: number) =>
      withValue(take, position !== undefined && atValue !== null ? position : undefined),
  };
  // The phase the cursor is in, then the ones after it.
  if (descending) return position !== undefined && atValue === null ? [nulls] : [values, nulls];
  return position !== undefined && atValue !== null ? [values] : [nulls, values];
}

/**
 * The statement of a page that is not the hot one: filtered, sorted or after a cursor. Exported
 * for the test that checks with EXPLAIN that each is served by an index (e2e/list-indexes.test.ts).
 */
export function pageQuery(
  db: Executor,
  def: ResourceDefinition,
  scope: Scope,
  criteria: ListCriteria,
  take: number,
) {
  const afterId = "afterId" in criteria.start ? criteria.start.afterId : 0;
  const offset = "offset" in criteria.start ? criteria.start.offset : 0;
  const keys = orderKeys(criteria);
  const conditions = listConditions(def, scope, criteria);
  if (afterId > 0) conditions.push(gt(column(def.table, "id"), afterId));
  if ("after" in criteria.start)
    conditions.push(...afterPosition(def, criteria, keys, criteria.start.after));
  // A sorted page reads its keys whatever `fields` picks: the next page's cursor is made of them.
  const shown = criteria.includeDeleted ? [...criteria.fields, "deleted_at"] : criteria.fields;
  const read = [
    ...new Set([...shown, ...keys.map((key) => key.field)].filter((f) => !CUSTOM_SORT.test(f))),
  ];
  const sortField = criteria.custom?.sort;
  const selected = {
    ...selection(def, read),
    ...(sortField ? { [`cf.${sortField.key}`]: sortColumn(sortField) } : {}),
  };
  const from = db.select(selected).from(def.table);
  const joined = sortField
    ? from.leftJoin(
        sortedValues,
        sortJoin(sortField, column(def.table, "company_id"), column(def.table, "id")),
      )
    : from;
  return joined
    .where(and(...conditions))
    .orderBy(
      ...keys.map((key) =>
        key.descending
          ? desc(keyColumn(def, criteria, key.field))
          : asc(keyColumn(def, criteria, key.field)),
      ),
    )
    .limit(take)
    .offset(offset);
}

async function countRecords(
  db: Executor,
  def: ResourceDefinition,
  scope: Scope,
  criteria: ListCriteria,
): Promise<number> {
  if (isUnfiltered(def, criteria)) return liveTotal(db, def, scope.companyId);
  const held = heldAlone(def, criteria);
  if (held) return heldTotal(db, def, scope, held);
  const [row] = await db
    .select({ total: count() })
    .from(def.table)
    .where(and(...listConditions(def, scope, criteria)));
  return Number(row?.total ?? 0);
}

export async function listRecords(
  db: Executor,
  def: ResourceDefinition,
  scope: Scope,
  criteria: ListCriteria,
): Promise<ListPage> {
  const sorted = criteria.sort !== undefined || "after" in criteria.start;
  const seeking = sorted || "afterId" in criteria.start;
  // A seeking or sorted page reads one record more than it shows: whether it exists tells whether another page follows.
  const [fetched, total] = await Promise.all([
    pageRows(db, def, scope, criteria, seeking ? criteria.limit + 1 : criteria.limit),
    criteria.total ? countRecords(db, def, scope, criteria) : undefined,
  ]);
  if (!seeking) return { rows: fetched, total };
  const rows = fetched.slice(0, criteria.limit);
  const more = fetched.length > criteria.limit;
  if (!sorted) return { rows, total, nextAfterId: more ? rows.at(-1)!.id : undefined };
  const next = more ? positionOf(criteria.sort ?? [], rows.at(-1)!) : undefined;
  const shown = new Set(
    criteria.includeDeleted ? [...criteria.fields, "deleted_at"] : criteria.fields,
  );
  for (const row of rows)
    for (const name of Object.keys(row)) if (!shown.has(name)) delete row[name];
  return { rows, total, next };
}
