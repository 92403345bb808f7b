// One page of a resource's list: its filters, offset or after_id paging, and its total.
import { and, asc, count, eq, getTableName, gt, gte, or, sql, type SQL } from "drizzle-orm";
import type { MySqlColumn } from "drizzle-orm/mysql-core";
import type { Executor } from "../db/client.ts";
import { executePrepared, unsignedInteger } from "../db/statements.ts";
import type { PageStart } from "../http/paging.ts";
import type { ResourceDefinition, StoredRecord } from "./definition.ts";
import { readableFieldNames } from "./fields.ts";
import { liveTotal } from "./live-total.ts";
import {
  column,
  fromBinaryRow,
  hasSoftDelete,
  scopeConditions,
  selection,
  toRecord,
  wholeRecordColumns,
  type Scope,
} from "./store.ts";

export interface ListCriteria {
  limit: number;
  start: PageStart;
  /** Count the matching records (meta.total); false skips the count. */
  total: boolean;
  q?: string;
  status?: string;
  filters: Record<string, number | string>;
  fields: readonly string[];
  /** Only records changed at or after this moment. */
  updatedSince?: Date;
  /** Deleted records too, each with its `deleted_at`. */
  includeDeleted?: boolean;
}

export interface ListPage {
  rows: StoredRecord[];
  /** Left out when the criteria asked for no total. */
  total?: number;
  /** On an after_id page while more records follow: the after_id of the next page. */
  nextAfterId?: number;
}

/** Nothing narrows the list but the company: its total is the company's live total. */
const isUnfiltered = (def: ResourceDefinition, criteria: ListCriteria): boolean =>
  !def.parent &&
  criteria.q === undefined &&
  criteria.status === undefined &&
  Object.keys(criteria.filters).length === 0 &&
  criteria.updatedSince === undefined &&
  !criteria.includeDeleted;

const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (char) => `\\${char}`);

function listConditions(def: ResourceDefinition, scope: Scope, criteria: ListCriteria): SQL[] {
  const conditions = scopeConditions(def, scope, criteria.includeDeleted);
  if (criteria.updatedSince !== undefined)
    conditions.push(gte(column(def.table, "updated_at"), criteria.updatedSince));
  if (criteria.status !== undefined)
    conditions.push(eq(column(def.table, "status"), criteria.status));
  for (const [name, value] of Object.entries(criteria.filters))
    conditions.push(eq(column(def.table, name), value));
  if (criteria.q !== undefined && def.search.length > 0) {
    const pattern = `%${escapeLike(criteria.q)}%`;
    // Unique values compare bytes (db/schema.ts), searches do not: each column is compared
    // under one case- and accent-insensitive collation, whatever its own.
    conditions.push(
      or(
        ...def.search.map(
          (name) => sql`${column(def.table, name)} COLLATE utf8mb4_unicode_ci LIKE ${pattern}`,
        ),
      )!,
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

async function pageRows(
  db: Executor,
  def: ResourceDefinition,
  scope: Scope,
  criteria: ListCriteria,
  take: number,
): Promise<StoredRecord[]> {
  const afterId = "afterId" in criteria.start ? criteria.start.afterId : 0;
  const offset = "offset" in criteria.start ? criteria.start.offset : 0;
  if (isUnfiltered(def, criteria) && criteria.fields.length === readableFieldNames(def).length) {
    const page = hotPage(def);
    const rows = await executePrepared<Record<string, unknown>[]>(
      db,
      page.text,
      [scope.companyId, afterId, take, offset].map(unsignedInteger),
    );
    return rows.map((row) => fromBinaryRow(page.fields, row));
  }
  const conditions = listConditions(def, scope, criteria);
  if (afterId > 0) conditions.push(gt(column(def.table, "id"), afterId));
  const rows = await db
    .select(
      selection(
        def,
        criteria.includeDeleted ? [...criteria.fields, "deleted_at"] : criteria.fields,
      ),
    )
    .from(def.table)
    .where(and(...conditions))
    .orderBy(asc(column(def.table, "id")))
    .limit(take)
    .offset(offset);
  return rows.map(toRecord);
}

async function countRecords(
  db: Executor,
  def: ResourceDefinition,
  scope: Scope,
  criteria: ListCriteria,
): Promise<number> {
  if (isUnfiltered(def, criteria)) return liveTotal(db, def, scope.companyId);
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
  const seeking = "afterId" in criteria.start;
  // An after_id page reads one record more than it shows: whether it exists tells whether another page follows.
  const [fetched, total] = await Promise.all([
    pageRows(db, def, scope, criteria, seeking ? criteria.limit + 1 : criteria.limit),
    criteria.total ? countRecords(db, def, scope, criteria) : undefined,
  ]);
  if (!seeking) return { rows: fetched, total };
  const rows = fetched.slice(0, criteria.limit);
  return {
    rows,
    total,
    nextAfterId: fetched.length > criteria.limit ? rows.at(-1)!.id : undefined,
  };
}
