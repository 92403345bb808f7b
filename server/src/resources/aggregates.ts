// Reports (docs/api.md, "Reports"): the records a list's filters select, counted and totalled in
// groups by one statement, its money added by the database as DECIMAL and never as a float.
import { and, eq, sql, type SQL } from "drizzle-orm";
import { getTableConfig } from "drizzle-orm/mysql-core";
import type { Executor } from "../db/client.ts";
import { selectRows } from "../db/sql.ts";
import { customFieldValues } from "../db/schema.ts";
import { invalidQuery, tooManyGroups } from "../refusals/catalogue.ts";
import type { CustomField } from "./custom-fields.ts";
import { indexColumn } from "./custom-lists.ts";
import type { ResourceDefinition } from "./definition.ts";
import { hasTimestamps, recordFields } from "./fields.ts";
import { filterConditions, type ListFilters } from "./lists.ts";
import { column, type Scope } from "./store.ts";

/** At most this many fields in `group_by`, and this many groups in one report. */
export const MAX_GROUP_KEYS = 3;
export const MAX_GROUPS = 1000;

export const DATE_BUCKETS = ["day", "week", "month", "year"] as const;
type Bucket = (typeof DATE_BUCKETS)[number];

/** How each bucket names its group: 2026-03-09, 2026-W11 (ISO 8601 week), 2026-03, 2026. */
const BUCKET_FORMATS: Record<Bucket, string> = {
  day: "%Y-%m-%d",
  week: "%x-W%v",
  month: "%Y-%m",
  year: "%Y",
};

/** What a value read by a report holds, which decides how it is shown (as the record shows it). */
export type ValueKind =
  | "enum"
  | "id"
  | "boolean"
  | "text"
  | "money"
  | "number"
  | "date"
  | "timestamp";

/** A field a report reads: the record field it is (for scope checks), its SQL and what it holds. */
export interface ReportField {
  field: string;
  sql: SQL;
  kind: ValueKind;
}

/**
 * What a report of a resource may group by and measure, by the name `group_by` and `metrics` give
 * it. The built-in fields come from the definition (`reportFields`); a company's own fields join
 * as more entries of the same shape named `cf.<key>` (select and boolean ones groupable, number,
 * money and date ones measured), with their SQL reading the stored value.
 */
export interface ReportFields {
  /** Grouped by their values: enums (status), references, booleans, the currency. */
  groupable: ReadonlyMap<string, ReportField>;
  /** Grouped by `day(f)`, `week(f)`, `month(f)`, `year(f)`; measured by `min` and `max`. */
  dated: ReadonlyMap<string, ReportField>;
  /** Measured by `sum`, `avg`, `min` and `max`: money and numbers. */
  summable: ReadonlyMap<string, ReportField>;
  /** The field naming the currency of the resource's money, when it has one. */
  currency?: string;
}

const reportFieldsOf = new WeakMap<ResourceDefinition, ReportFields>();

/** The built-in fields a report of `def` may group by and measure. */
export function reportFields(def: ResourceDefinition): ReportFields {
  const known = reportFieldsOf.get(def);
  if (known) return known;
  const groupable = new Map<string, ReportField>();
  const dated = new Map<string, ReportField>();
  const summable = new Map<string, ReportField>();
  let currency: string | undefined;
  const read = (field: string, kind: ValueKind): ReportField => ({
    field,
    sql: sql`${column(def.table, field)}`,
    kind,
  });
  for (const [name, spec] of recordFields(def)) {
    // A sub-collection's records all name the same parent: nothing to group.
    if (name === def.parent?.column) continue;
    if (spec.type === "enum") groupable.set(name, read(name, "enum"));
    else if (spec.type === "ref") groupable.set(name, read(name, "id"));
    else if (spec.type === "boolean") groupable.set(name, read(name, "boolean"));
    else if (spec.type === "currency") {
      groupable.set(name, read(name, "text"));
      currency = name;
    } else if (spec.type === "date") dated.set(name, read(name, "date"));
    else if (spec.type === "money") summable.set(name, read(name, "money"));
  }
  if (hasTimestamps(def))
    for (const name of ["created_at", "updated_at"]) dated.set(name, read(name, "timestamp"));
  const fields = { groupable, dated, summable, ...(currency ? { currency } : {}) };
  reportFieldsOf.set(def, fields);
  return fields;
}

/**
 * `fields` with a company's own fields of the resource joined as `cf.<key>`: select and boolean ones
 * grouped, integer, decimal and money ones measured, dates bucketed and measured by min and max.
 * Each reads the record's value from the typed index (custom_field_values) by the record's id;
 * money as DECIMAL to the cent, so it adds as built-in money does.
 */
export function withCustomFields(
  def: ResourceDefinition,
  fields: ReportFields,
  custom: readonly CustomField[],
): ReportFields {
  if (custom.length === 0) return fields;
  const groupable = new Map(fields.groupable);
  const dated = new Map(fields.dated);
  const summable = new Map(fields.summable);
  const v = customFieldValues;
  for (const one of custom) {
    const value = sql`(SELECT ${indexColumn(one)} FROM ${v} WHERE ${and(
      eq(v.company_id, column(def.table, "company_id")),
      eq(v.field_id, one.id),
      eq(v.record_id, column(def.table, "id")),
    )})`;
    const name = `cf.${one.key}`;
    const read = (kind: ValueKind, text = value): ReportField => ({
      field: `custom_fields.${one.key}`,
      sql: text,
      kind,
    });
    if (one.type === "select") groupable.set(name, read("text"));
    else if (one.type === "boolean") groupable.set(name, read("boolean"));
    else if (one.type === "date") dated.set(name, read("date"));
    else if (one.type === "money")
      summable.set(name, read("money", sql`CAST(${value} AS DECIMAL(20, 2))`));
    else if (one.type === "integer")
      summable.set(name, read("number", sql`CAST(${value} AS SIGNED)`));
    else if (one.type === "decimal") summable.set(name, read("number"));
  }
  return { ...fields, groupable, dated, summable };
}

/** Every value `group_by` and `metrics` take, for the document's enums (and so the SDK's types). */
export function reportVocabulary(fields: ReportFields): { groupBy: string[]; metrics: string[] } {
  const dated = [...fields.dated.keys()];
  const summable = [...fields.summable.keys()];
  return {
    groupBy: [
      ...fields.groupable.keys(),
      ...dated.flatMap((name) => DATE_BUCKETS.map((bucket) => `${bucket}(${name})`)),
    ],
    metrics: [
      "count",
      ...summable.flatMap((name) => ["sum", "avg", "min", "max"].map((m) => `${m}(${name})`)),
      ...dated.flatMap((name) => [`min(${name})`, `max(${name})`]),
    ],
  };
}

/** One group key or metric of a report: its name in the answer, its SQL, how its value is shown. */
interface Column {
  name: string;
  sql: SQL;
  kind: ValueKind | "count";
}

/** What a report computes: its group keys in `group_by` order, then its metrics. */
export interface ReportPlan {
  groups: Column[];
  metrics: Column[];
  /** Every record field the report reads: what the token must be allowed to see. */
  fields: string[];
}

const CALL = /^([a-z]+)\(([a-z0-9_.]+)\)$/;

function groupColumn(fields: ReportFields, name: string): Column & { field: string } {
  const plain = fields.groupable.get(name);
  if (plain) return { name, sql: plain.sql, kind: plain.kind, field: plain.field };
  const [, bucket = "", of = ""] = CALL.exec(name) ?? [];
  const dated = fields.dated.get(of);
  if (dated && (DATE_BUCKETS as readonly string[]).includes(bucket)) {
    const format = BUCKET_FORMATS[bucket as Bucket];
    return {
      name,
      sql: sql`DATE_FORMAT(${dated.sql}, ${format})`,
      kind: "text",
      field: dated.field,
    };
  }
  const { groupBy } = reportVocabulary(fields);
  throw invalidQuery(
    `"group_by" cannot group by "${name}": it takes ${groupBy.length > 0 ? groupBy.join(", ") : "nothing on this resource"}.`,
  );
}

/**
 * The exact mean of money to the cent, rounded half to even: the cents' sum divided by the count
 * with its remainder, all in DECIMAL (AVG would round at 4 more decimals first, half away from zero).
 */
function moneyMean(value: SQL): SQL {
  const cents = sql`(SUM(${value}) * 100)`;
  const n = sql`COUNT(${value})`;
  const rest = sql`MOD(${cents}, ${n})`;
  const whole = sql`((${cents} - ${rest}) / ${n})`;
  const up = sql`CASE WHEN 2 * ${rest} > ${n} OR (2 * ${rest} = ${n} AND MOD(${whole}, 2) = 1) THEN 1 ELSE 0 END`;
  return sql`CASE WHEN ${n} = 0 THEN NULL ELSE CAST((${whole} + ${up}) / 100 AS DECIMAL(20, 2)) END`;
}

function metricColumn(fields: ReportFields, name: string): Column & { field?: string } {
  if (name === "count") return { name, sql: sql`COUNT(*)`, kind: "count" };
  const [, measure = "", of = ""] = CALL.exec(name) ?? [];
  const summed = fields.summable.get(of);
  const dated = fields.dated.get(of);
  const target = summed ?? (measure === "min" || measure === "max" ? dated : undefined);
  if (target && ["sum", "avg", "min", "max"].includes(measure)) {
    const money = target.kind === "money";
    const text: Record<string, SQL> = {
      sum: sql`COALESCE(SUM(${target.sql}), 0)`,
      avg: money ? moneyMean(target.sql) : sql`AVG(${target.sql})`,
      min: sql`MIN(${target.sql})`,
      max: sql`MAX(${target.sql})`,
    };
    return { name, sql: text[measure]!, kind: target.kind, field: target.field };
  }
  const { metrics } = reportVocabulary(fields);
  throw invalidQuery(`"metrics" cannot compute "${name}": it takes ${metrics.join(", ")}.`);
}

function distinct(names: readonly string[], param: string): void {
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) throw invalidQuery(`"${param}" names "${twice}" twice; name it once.`);
}

/**
 * The plan of a report grouped by `groupBy` computing `metrics` (`count` when none): each name
 * checked against `fields` (400 invalid_query naming the one it cannot take). Where the resource
 * has a currency, money metrics are grouped by it too: amounts in different currencies never add.
 */
export function reportPlan(
  fields: ReportFields,
  groupBy: readonly string[],
  metrics: readonly string[],
): ReportPlan {
  if (groupBy.length > MAX_GROUP_KEYS)
    throw invalidQuery(
      `"group_by" takes at most ${MAX_GROUP_KEYS} fields, not ${groupBy.length} (${groupBy.join(", ")}).`,
    );
  distinct(groupBy, "group_by");
  distinct(metrics, "metrics");
  const groups = groupBy.map((name) => groupColumn(fields, name));
  const measured = (metrics.length > 0 ? metrics : ["count"]).map((name) =>
    metricColumn(fields, name),
  );
  const currency = fields.currency;
  if (currency && measured.some((m) => m.kind === "money") && !groupBy.includes(currency))
    groups.push(groupColumn(fields, currency));
  const read = [...groups, ...measured].flatMap((c) => (c.field ? [c.field] : []));
  return {
    groups: groups.map(({ name, sql: text, kind }) => ({ name, sql: text, kind })),
    metrics: measured.map(({ name, sql: text, kind }) => ({ name, sql: text, kind })),
    fields: [...new Set(read)],
  };
}

/** A value of a report's row as the API shows it. */
function shown(kind: Column["kind"], value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (kind === "count" || kind === "id") return Number(value);
  if (kind === "boolean") return Number(value) === 1;
  if (value instanceof Date) return value.toISOString();
  // A custom number as its values are written: without trailing zeros after the point.
  if (kind === "number")
    return String(value)
      .replace(/(\.\d*?)0+$/, "$1")
      .replace(/\.$/, "");
  return String(value);
}

/** One group of a report: its key values by name, then each metric by name. */
export type ReportRow = { group: Record<string, unknown> } & Record<string, unknown>;

/**
 * The columns a report's statement reads besides the company and `live`, when they are all columns
 * of the table (a company's own field is not): its filters', its groups' and its metrics'.
 */
function columnsRead(
  def: ResourceDefinition,
  plan: ReportPlan,
  filters: ListFilters,
): string[] | undefined {
  if (plan.fields.length === 0) return undefined;
  const names = [
    ...plan.fields,
    ...Object.keys(filters.filters),
    ...Object.keys(filters.ranges ?? {}),
    ...(filters.q !== undefined ? def.search : []),
    ...(filters.updatedSince !== undefined ? ["updated_at"] : []),
    ...(def.parent ? [def.parent.column] : []),
  ];
  return names.every((name) => Object.hasOwn(def.table, name)) ? names : undefined;
}

/**
 * An index of live records (company_id, live, …) holding every column a report reads: the report
 * reads it alone. Named to the database, which would otherwise often take a shorter index of the
 * group's key and read a million rows for the measured column (bench/README.md).
 */
function coveringIndex(def: ResourceDefinition, columns: string[] | undefined): string | undefined {
  if (columns === undefined) return undefined;
  const indexes = getTableConfig(def.table).indexes.map(({ config }) => ({
    name: config.name,
    columns: config.columns.map((c) => (c as { name?: string }).name ?? ""),
  }));
  const fits = indexes.filter(
    (index) =>
      index.columns[0] === "company_id" &&
      index.columns[1] === "live" &&
      columns.every((name) => index.columns.includes(name)),
  );
  fits.sort((a, b) => a.columns.length - b.columns.length);
  return fits[0]?.name;
}

/**
 * The statement of a report: one row per group, ordered by the group keys (NULL first), of the
 * records `filters` selects, one row more than MAX_GROUPS at most. Live records are told by `live`,
 * as the sort indexes (company_id, live, key) hold them, so a count grouped by an indexed field
 * reads that index alone.
 */
function reportStatement(
  def: ResourceDefinition,
  scope: Scope,
  plan: ReportPlan,
  filters: ListFilters,
): SQL {
  const live = Object.hasOwn(def.table, "live") ? "live" : "deleted_at";
  const conditions = filterConditions(def, scope, filters, live);
  const covering =
    live === "live" ? coveringIndex(def, columnsRead(def, plan, filters)) : undefined;
  const from = covering ? sql`${def.table} FORCE INDEX (${sql.identifier(covering)})` : def.table;
  const alias = (prefix: string, index: number) => sql.identifier(`${prefix}${index}`);
  const selected = [
    ...plan.groups.map((g, i) => sql`${g.sql} AS ${alias("g", i)}`),
    ...plan.metrics.map((m, i) => sql`${m.sql} AS ${alias("m", i)}`),
  ];
  const keys = sql.join(
    plan.groups.map((_, i) => alias("g", i)),
    sql`, `,
  );
  const grouped = plan.groups.length > 0 ? sql` GROUP BY ${keys} ORDER BY ${keys}` : sql``;
  return sql`SELECT ${sql.join(selected, sql`, `)} FROM ${from} WHERE ${and(...conditions)}${grouped} LIMIT ${MAX_GROUPS + 1}`;
}

/** The plan the database chooses for a report (EXPLAIN's rows): the bench names it (bench/README.md). */
export const explainReport = (
  db: Executor,
  def: ResourceDefinition,
  scope: Scope,
  plan: ReportPlan,
  filters: ListFilters,
): Promise<Record<string, unknown>[]> =>
  selectRows(db, sql`EXPLAIN ${reportStatement(def, scope, plan, filters)}`);

/** The report's groups as the API shows them; 400 too_many_groups past MAX_GROUPS. */
export async function runReport(
  db: Executor,
  def: ResourceDefinition,
  scope: Scope,
  plan: ReportPlan,
  filters: ListFilters,
): Promise<ReportRow[]> {
  const rows = await selectRows<Record<string, unknown>>(
    db,
    reportStatement(def, scope, plan, filters),
  );
  if (rows.length > MAX_GROUPS) throw tooManyGroups(MAX_GROUPS);
  return rows.map((row) => {
    const group = Object.fromEntries(
      plan.groups.map((g, i) => [g.name, shown(g.kind, row[`g${i}`])]),
    );
    const values = plan.metrics.map((m, i) => [m.name, shown(m.kind, row[`m${i}`])]);
    return { group, ...Object.fromEntries(values) } as ReportRow;
  });
}
