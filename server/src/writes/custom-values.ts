// The typed index of the custom field values a write of records sets (resources/custom-fields.ts,
// db/schema.ts custom_field_values), kept in the write's own transaction: a created record's values
// inserted, a changed record's rows of its resource's fields replaced. Two statements whatever the
// number of records.
import { sqlRows } from "../db/sql.ts";
import { rowsStatement } from "../db/write-transaction.ts";
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
}
