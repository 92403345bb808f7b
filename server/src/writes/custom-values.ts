// The typed index of the custom field values a write of records sets (resources/custom-fields.ts,
// db/schema.ts custom_field_values), kept in the write's own transaction: a created record's values
// inserted, a changed record's rows of its resource's fields replaced. Two statements whatever the
// number of records, and a third when a record's live values of unique fields change.
//
// A unique field's value is held in `unique_value` too, which a UNIQUE key (company_id, field_id,
// unique_value) guards: the field's key, then the SHA-256 of the whole value as the unique check
// compares it (a text exactly, trailing spaces aside; a number as its canonical decimal; a date as
// itself), for live records only; NULL for the values of other fields and of deleted records, which
// never conflict. So two writes that take the same value at once cannot both commit, whatever the
// server or cluster node each runs on: the second meets the key, and runs again against the first
// (writes/execute-write.ts). One SQL expression computes it, for writes, deletes, restores and a
// field made unique alike (docs/custom-fields.md).
import { getTableName } from "drizzle-orm";
import { sqlRows } from "../db/sql.ts";
import { rowsStatement, type Statement } from "../db/write-transaction.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { type CustomField, indexColumnOf, indexedValue } from "../resources/custom-fields.ts";
import type { Decisions } from "./item-decisions.ts";

type IndexRow = [number, number, number, unknown, unknown, unknown];

/** The index rows of one record's values: one per field that holds a value. */
function rowsOf(
  fields: readonly CustomField[],
  companyId: number,
  recordId: number,
  values: unknown,
): IndexRow[] {
  if (typeof values !== "object" || values === null) return [];
  const held = values as Record<string, unknown>;
  return fields.flatMap((field): IndexRow[] => {
    const value = held[field.key];
    if (value === null || value === undefined) return [];
    const indexed = indexedValue(field, value);
    const column = indexColumnOf(field.type);
    return [
      [
        companyId,
        field.id,
        recordId,
        column === "value_text" ? indexed : null,
        column === "value_number" ? indexed : null,
        column === "value_date" ? indexed : null,
      ],
    ];
  });
}

/** Text in one character set and collation, whatever the server's defaults: its parts never mix two. */
const exact = (expression: string): string =>
  `CONVERT(${expression} USING utf8mb4) COLLATE utf8mb4_bin`;

/** The value of a row `v` of custom_field_values as the unique check compares it (uniqueTextOf). */
const COMPARED_VALUE_SQL =
  `CASE f.type WHEN 'text' THEN ${exact("JSON_UNQUOTE(JSON_EXTRACT(r.custom_fields, CONCAT('$.', f.`key`)))")} ` +
  `WHEN 'select' THEN ${exact("v.value_text")} WHEN 'date' THEN ${exact("CAST(v.value_date AS CHAR)")} ` +
  `ELSE ${exact("TRIM(TRAILING '.' FROM TRIM(TRAILING '0' FROM CAST(v.value_number AS CHAR)))")} END`;

/**
 * The `unique_value` of a row `v` of custom_field_values, given its field `f` and record `r`: the
 * field's key and the hash of the value (trailing spaces aside), NULL when the field is not unique
 * or the record is deleted.
 */
export const UNIQUE_VALUE_SQL =
  "IF(f.`unique` = 1 AND r.deleted_at IS NULL, " +
  `CONCAT(${exact("f.`key`")}, ':', ${exact(`SHA2(TRIM(TRAILING ' ' FROM ${COMPARED_VALUE_SQL}), 256)`)}), NULL)`;

/**
 * Sets `unique_value` for the rows of `def`'s records `ids` of its unique fields, as the records
 * now are (created, changed, deleted or restored): after the statements that change them.
 */
export function uniqueValuesStatement(
  def: ResourceDefinition,
  companyId: number,
  ids: readonly number[],
): Statement {
  return {
    text:
      "UPDATE custom_field_values v JOIN custom_fields f ON f.company_id = v.company_id AND " +
      `f.id = v.field_id JOIN \`${getTableName(def.table)}\` r ON r.company_id = v.company_id AND ` +
      `r.id = v.record_id SET v.unique_value = ${UNIQUE_VALUE_SQL} WHERE v.company_id = ? AND ` +
      "f.resource = ? AND f.`unique` = 1 AND v.record_id IN (?)",
    values: [companyId, def.name, [...ids]],
  };
}

/** The statement of uniqueValuesStatement after a delete or restore of `def`'s records, if it has custom fields. */
export const uniqueValuesAfter = (
  def: ResourceDefinition,
  companyId: number,
  ids: readonly number[],
): Statement[] =>
  Object.hasOwn(def.table, "custom_fields") && ids.length > 0
    ? [uniqueValuesStatement(def, companyId, ids)]
    : [];

/** After the records' statements: the index rows of the values the created and changed records hold. */
export function planCustomValues(d: Decisions): void {
  const fields = d.rules.lookups.customFields;
  if (fields.length === 0) return;
  const companyId = d.writes.company.id;
  const replaced = [...d.changed.values()].filter(({ values }) => "custom_fields" in values);
  const rows: IndexRow[] = [];
  for (const { id, values } of d.created)
    rows.push(...rowsOf(fields, companyId, id!, values.custom_fields));
  for (const { record, values } of replaced)
    rows.push(...rowsOf(fields, companyId, record.id, values.custom_fields));
  if (replaced.length > 0)
    d.plan.statements.push({
      text:
        "DELETE FROM custom_field_values WHERE company_id = ? AND field_id IN (?) AND " +
        "record_id IN (?)",
      values: [companyId, fields.map((field) => field.id), replaced.map(({ record }) => record.id)],
    });
  if (rows.length > 0)
    d.plan.statements.push(
      rowsStatement(
        "INSERT INTO custom_field_values (company_id, field_id, record_id, value_text, " +
          "value_number, value_date) VALUES ",
        sqlRows(rows),
      ),
    );
  // Whether a field is unique is read from the database as the statement runs: a definition
  // changed since this write read it (on another server, say) still counts.
  const ids = [
    ...d.created.map(({ id }) => id!),
    ...replaced.map(({ record }) => record.id),
    ...d.restored.map(({ id }) => id),
  ];
  if (ids.length > 0) d.plan.statements.push(uniqueValuesStatement(d.def, companyId, ids));
}
