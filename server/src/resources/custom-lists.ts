// Lists by custom fields (docs/custom-fields.md): `cf.<key>=v` (a select's `a,b` any of),
// `cf.<key>[gte|gt|lt|lte]=v` on integer, decimal, money and date fields, and `sort=cf.<key>`. Each
// reads the typed index custom_field_values (db/schema.ts) by (company_id, field_id, value,
// record_id): a filter is the set of record ids the index holds for the value, a sort joins each
// record's value. The parameters are the company's own, so they are read here from the query
// against its fields, not declared by the route.
import { and, eq, gt, gte, inArray, lt, lte, type SQL, sql } from "drizzle-orm";
import { alias, type MySqlColumn } from "drizzle-orm/mysql-core";
import { customFieldValues } from "../db/schema.ts";
import { invalidQuery } from "../refusals/catalogue.ts";
import type { RangeOperator } from "../http/query.ts";
import {
  type CustomField,
  INDEXED_TEXT_LENGTH,
  indexColumnOf,
  normalizeDecimal,
} from "./custom-fields.ts";
import { isCalendarDate } from "./validation-values.ts";

/** One custom-field filter of a list: equality (any of `values`) or a range's bounds. */
export interface CustomFilter {
  field: CustomField;
  values?: readonly (string | number)[];
  range?: Partial<Record<RangeOperator, string>>;
}

const PARAM = /^cf\.([a-z][a-z0-9_]{0,39})(?:\[([a-z]*)\])?$/;
const RANGED = new Set(["integer", "decimal", "money", "date"]);
const OPERATORS = new Set(["gte", "gt", "lt", "lte"]);

/** True for a query parameter this module reads (`cf.…`): the route's own parsing leaves it. */
export const isCustomParam = (name: string): boolean => name.startsWith("cf.");

/** A sort key on a custom field: `cf.<key>`. */
export const CUSTOM_SORT = /^cf\.[a-z][a-z0-9_]{0,39}$/;

function unknownKey(key: string, fields: readonly CustomField[]): never {
  throw invalidQuery(
    `"cf.${key}" names no custom field of this resource; ${
      fields.length ? `its custom fields are ${fields.map((f) => f.key).join(", ")}` : "it has none"
    } (GET /v1/custom-fields).`,
  );
}

/** One value of a filter or range on `field`, as the index holds it; 400 naming the parameter. */
function indexValue(field: CustomField, text: string, name: string): string | number {
  const bad = (what: string): never => {
    throw invalidQuery(`"${name}" must be ${what}, not "${text}".`);
  };
  switch (field.type) {
    case "text":
      return [...text].slice(0, INDEXED_TEXT_LENGTH).join("");
    case "select":
      return field.options.choices?.includes(text)
        ? text
        : bad(`one of ${(field.options.choices ?? []).join(", ")}`);
    case "boolean":
      return text === "true" ? 1 : text === "false" ? 0 : bad("true or false");
    case "date":
      return isCalendarDate(text) ? text : bad("a date YYYY-MM-DD");
    case "integer":
      return /^-?[0-9]{1,16}$/.test(text) ? text : bad("a whole number");
    default:
      return normalizeDecimal(text) ?? bad("a number");
  }
}

/** The custom-field filters of a list's query, read against the company's fields of the resource. */
export function customFilters(
  params: URLSearchParams | undefined,
  fields: readonly CustomField[],
): CustomFilter[] {
  const filters = new Map<string, CustomFilter>();
  for (const name of new Set(params?.keys() ?? [])) {
    if (!isCustomParam(name)) continue;
    const match = PARAM.exec(name);
    const field = match && fields.find((one) => one.key === match[1]);
    if (!match || !field) unknownKey(match?.[1] ?? name.slice(3), fields);
    if (params!.getAll(name).length > 1)
      throw invalidQuery(`Query parameter "${name}" is given more than once; give it once.`);
    const text = params!.get(name)!;
    const filter = filters.get(field.key) ?? { field };
    filters.set(field.key, filter);
    const operator = match[2];
    if (operator === undefined) {
      const parts = field.type === "select" ? text.split(",") : [text];
      filter.values = parts.map((part) => indexValue(field, part, name));
      continue;
    }
    if (!OPERATORS.has(operator) || !RANGED.has(field.type))
      throw invalidQuery(
        `"${name}": ranges (gte, gt, lt, lte) are taken on integer, decimal, money and date fields.`,
      );
    filter.range = { ...filter.range, [operator]: String(indexValue(field, text, name)) };
  }
  return [...filters.values()];
}

/** What binds a cursor to these filters (paging.ts, listFingerprint). */
export const customFingerprint = (params: URLSearchParams | undefined): string[][] =>
  [...(params?.entries() ?? [])].filter(([name]) => isCustomParam(name)).sort();

const compare = { gte, gt, lt, lte };

/** The rows of the index that hold a filter's value (or a value in its range). */
function heldRows(companyId: number, { field, values, range }: CustomFilter): SQL {
  const v = customFieldValues;
  const value: MySqlColumn = v[indexColumnOf(field.type)];
  const held: SQL[] = [eq(v.company_id, companyId), eq(v.field_id, field.id)];
  if (values) held.push(values.length === 1 ? eq(value, values[0]!) : inArray(value, [...values]));
  for (const [operator, bound] of Object.entries(range ?? {}) as [RangeOperator, string][])
    held.push(compare[operator](value, bound));
  return and(...held)!;
}

/** Conditions on the record ids of `idColumn`: those the index holds for each filter. */
export function customConditions(
  companyId: number,
  idColumn: MySqlColumn,
  filters: readonly CustomFilter[],
): SQL[] {
  const v = customFieldValues;
  return filters.map((filter) =>
    inArray(idColumn, sql`(SELECT ${v.record_id} FROM ${v} WHERE ${heldRows(companyId, filter)})`),
  );
}

/**
 * How many live records of a table with `live` (1, NULL once deleted) a filter alone selects: the
 * index's rows holding the value, read from the value's index alone, less those of deleted records
 * (a deleted record keeps its rows for its restore), found from the deleted records. Checking each
 * row's record instead read a million records' rows for the total of one value of nine on a
 * million records: a second, against a few milliseconds for the same count on a built-in field
 * (bench/custom-fields.ts).
 */
export function heldCount(companyId: number, table: string, filter: CustomFilter): SQL {
  const held = heldRows(companyId, filter);
  const records = sql.identifier(table);
  return sql`SELECT (SELECT COUNT(*) FROM custom_field_values WHERE ${held}) - (SELECT COUNT(*)
    FROM ${records} r JOIN custom_field_values ON custom_field_values.company_id = r.company_id
    AND custom_field_values.record_id = r.id WHERE r.company_id = ${companyId} AND r.live IS NULL
    AND ${held}) AS total`;
}

/** The join a list sorted by a custom field reads each record's value through. */
export const sortedValues = alias(customFieldValues, "cf_sort");

/** The join's condition: the record's row of the field, if any (NULL sorts first ascending). */
export const sortJoin = (field: CustomField, companyColumn: MySqlColumn, idColumn: MySqlColumn) =>
  and(
    eq(sortedValues.company_id, companyColumn),
    eq(sortedValues.field_id, field.id),
    eq(sortedValues.record_id, idColumn),
  )!;

/** The column a list sorted by `field` orders by. */
export const sortColumn = (field: CustomField): MySqlColumn =>
  sortedValues[indexColumnOf(field.type)] as MySqlColumn;

/** The index column a field's values are read from (custom_field_values). */
export const indexColumn = (field: CustomField): MySqlColumn =>
  customFieldValues[indexColumnOf(field.type)] as MySqlColumn;

/** The index of custom_field_values that holds a field's values in (value, record_id) order. */
export const valueIndexOf = (field: CustomField): string =>
  `custom_field_values_${indexColumnOf(field.type).slice("value_".length)}`;

/** Whether a cursor's value can be one a page sorted by `field` ended on (it reaches SQL). */
export function fitsSort(field: CustomField, value: unknown): boolean {
  if (value === null) return true;
  if (typeof value !== "string") return false;
  const column = indexColumnOf(field.type);
  if (column === "value_date") return isCalendarDate(value);
  if (column === "value_number") return /^-?[0-9]{1,18}(\.[0-9]{1,6})?$/.test(value);
  return [...value].length <= INDEXED_TEXT_LENGTH;
}
