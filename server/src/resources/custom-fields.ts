// A company's own fields (docs/custom-fields.md): their definitions as rows of `custom_fields`, the
// check of a record's values against them (as a built-in field is checked, errors named
// `custom_fields.<key>`), the object a record shows (one member per field, null when empty), and
// how a value is kept in the typed index `custom_field_values` that filters, sorts and unique checks
// read. No table changes when a company defines a field.
import { and, asc, eq } from "drizzle-orm";
import type { Executor } from "../db/client.ts";
import { customFields } from "../db/schema.ts";
import type { FieldError } from "../refusals/refusal.ts";
import type { ResourceDefinition, StoredRecord } from "./definition.ts";
import { characterCount, isCalendarDate, normalizeMoney } from "./validation-values.ts";

export const CUSTOM_FIELD_TYPES = [
  "text",
  "integer",
  "decimal",
  "money",
  "date",
  "boolean",
  "select",
] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

export interface CustomFieldOptions {
  /** text: at most this many characters (default 255, at most 1000). */
  max_length?: number;
  /** select: the values a record may hold. */
  choices?: string[];
}

/** A definition as the API shows it. */
export interface CustomField {
  id: number;
  resource: string;
  key: string;
  label: string;
  type: CustomFieldType;
  required: boolean;
  unique: boolean;
  sensitive: boolean;
  options: CustomFieldOptions;
  description: string | null;
  created_at: string;
  updated_at: string;
}

export const KEY_PATTERN = /^[a-z][a-z0-9_]{0,39}$/;
export const TEXT_DEFAULT_LENGTH = 255;
export const TEXT_MAX_LENGTH = 1000;
/** How many characters of a text value the index holds (custom_field_values.value_text). */
export const INDEXED_TEXT_LENGTH = 255;

const dateText = (value: unknown): string =>
  value instanceof Date ? value.toISOString() : String(value);

/** A row of `custom_fields` as the API shows the definition. */
export function customFieldOf(row: Record<string, unknown>): CustomField {
  const options = typeof row.options === "string" ? JSON.parse(row.options) : (row.options ?? {});
  return {
    id: Number(row.id),
    resource: String(row.resource),
    key: String(row.key),
    label: String(row.label),
    type: String(row.type) as CustomFieldType,
    required: Boolean(Number(row.required)),
    unique: Boolean(Number(row.unique)),
    sensitive: Boolean(Number(row.sensitive)),
    options: options as CustomFieldOptions,
    description:
      row.description === null || row.description === undefined ? null : String(row.description),
    created_at: dateText(row.created_at),
    updated_at: dateText(row.updated_at),
  };
}

/** Every definition of the company, oldest first (a resource's fields in the order they were made). */
export async function readCustomFields(db: Executor, companyId: number): Promise<CustomField[]> {
  const rows = await db
    .select()
    .from(customFields)
    .where(eq(customFields.company_id, companyId))
    .orderBy(asc(customFields.id));
  return rows.map((row) => customFieldOf(row as unknown as Record<string, unknown>));
}

/** One definition of the company, or undefined (another company's is not found). */
export async function findCustomField(
  db: Executor,
  companyId: number,
  id: number,
  forUpdate = false,
): Promise<CustomField | undefined> {
  const query = db
    .select()
    .from(customFields)
    .where(and(eq(customFields.company_id, companyId), eq(customFields.id, id)))
    .limit(1);
  const [row] = forUpdate ? await query.for("update") : await query;
  return row ? customFieldOf(row as unknown as Record<string, unknown>) : undefined;
}

/**
 * The definitions reads show records with, per company: read again once a second at most, and at
 * once on this process after a definition changes here (forgetCustomFields). A write reads them in
 * its own look-ups instead (writes/lookups.ts), so it never checks values against stale ones.
 */
const cached = new Map<number, { at: number; fields: Promise<CustomField[]> }>();
const FRESH_MS = 1000;

export function customFieldsForReads(db: Executor, companyId: number): Promise<CustomField[]> {
  const now = Date.now();
  const entry = cached.get(companyId);
  if (entry && now - entry.at < FRESH_MS) return entry.fields;
  const fields = readCustomFields(db, companyId);
  cached.set(companyId, { at: now, fields });
  fields.catch(() => cached.delete(companyId));
  if (cached.size > 10_000) cached.delete(cached.keys().next().value!);
  return fields;
}

/** After a definition of the company changed on this process: the next read reads them again. */
export function forgetCustomFields(companyId: number): void {
  cached.delete(companyId);
}

/** The company's fields of one resource, in the order they were made. */
export const fieldsOfResource = (fields: readonly CustomField[], resource: string): CustomField[] =>
  fields.filter((field) => field.resource === resource);

/**
 * The keys of the company's sensitive fields of a resource (docs/custom-fields.md): what a token
 * without `<resource>:sensitive` must not see or write.
 */
export async function sensitiveCustomKeys(
  db: Executor,
  companyId: number,
  resource: string,
): Promise<string[]> {
  return fieldsOfResource(await customFieldsForReads(db, companyId), resource)
    .filter((field) => field.sensitive)
    .map((field) => field.key);
}

/** The object a record shows: one member per field of its resource, in their order, null when empty. */
export function shownValues(
  fields: readonly CustomField[],
  stored: unknown,
): Record<string, unknown> {
  const values =
    typeof stored === "object" && stored !== null ? (stored as Record<string, unknown>) : {};
  const shown: Record<string, unknown> = {};
  for (const field of fields) shown[field.key] = values[field.key] ?? null;
  return shown;
}

/** Records as they are shown: each one's `custom_fields` (when read) as shownValues makes it. */
export function showCustomFields(
  fields: readonly CustomField[],
  records: readonly StoredRecord[],
): void {
  for (const record of records)
    if ("custom_fields" in record) record.custom_fields = shownValues(fields, record.custom_fields);
}

/**
 * Records of `def` as a read shows them to the company: their `custom_fields` with every field of the
 * resource (nothing to do for a resource without custom fields, or records read without them).
 */
export async function showRecords(
  db: Executor,
  companyId: number,
  def: ResourceDefinition,
  records: readonly StoredRecord[],
): Promise<void> {
  if (!Object.hasOwn(def.table, "custom_fields") || records.length === 0) return;
  if (!records.some((record) => "custom_fields" in record)) return;
  const fields = fieldsOfResource(await customFieldsForReads(db, companyId), def.name);
  showCustomFields(fields, records);
}

const fail = (key: string, code: string, message: string): FieldError => ({
  field: `custom_fields.${key}`,
  code,
  message,
});

const DECIMAL_TEXT = /^-?[0-9]{1,18}(\.[0-9]{1,6})?$/;

/** A decimal in, its canonical text out (no trailing zeros after the point); undefined when it is not one. */
export function normalizeDecimal(value: unknown): string | undefined {
  let text: string;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return undefined;
    text = String(value);
    if (/e/i.test(text)) return undefined;
  } else if (typeof value === "string") text = value;
  else return undefined;
  if (!DECIMAL_TEXT.test(text)) return undefined;
  const negative = text.startsWith("-");
  const [whole = "0", fraction = ""] = (negative ? text.slice(1) : text).split(".");
  const trimmed = fraction.replace(/0+$/, "");
  const body = `${BigInt(whole)}${trimmed ? `.${trimmed}` : ""}`;
  return negative && body !== "0" ? `-${body}` : body;
}

/** One sent, non-null value against its field: the value as stored, or what is wrong with it. */
export function checkCustomValue(
  field: CustomField,
  value: unknown,
): { value: unknown } | FieldError {
  const name = `custom_fields.${field.key}`;
  switch (field.type) {
    case "text": {
      const max = field.options.max_length ?? TEXT_DEFAULT_LENGTH;
      if (typeof value !== "string" || !value.isWellFormed())
        return fail(field.key, "invalid_type", `${name} must be text (a JSON string).`);
      const length = characterCount(value);
      return length > max
        ? fail(
            field.key,
            "too_long",
            `${name} must be at most ${max} characters (it has ${length}).`,
          )
        : { value };
    }
    case "integer":
      return typeof value === "number" && Number.isSafeInteger(value)
        ? { value }
        : fail(field.key, "invalid_integer", `${name} must be a whole number, e.g. 42.`);
    case "decimal": {
      const decimal = normalizeDecimal(value);
      return decimal === undefined
        ? fail(
            field.key,
            "invalid_decimal",
            `${name} must be a number with at most 6 decimals, as a string or a number, e.g. "12.375".`,
          )
        : { value: decimal };
    }
    case "money": {
      const money = normalizeMoney(value);
      return money === undefined
        ? fail(
            field.key,
            "invalid_money",
            `${name} must be an amount of money: at least 0, at most 2 decimals, as a string or a number, e.g. "12.50".`,
          )
        : { value: money };
    }
    case "date":
      return typeof value === "string" && isCalendarDate(value)
        ? { value }
        : fail(
            field.key,
            "invalid_date",
            `${name} must be a calendar date written YYYY-MM-DD (years 1000-9999), e.g. "2026-03-01".`,
          );
    case "boolean":
      return typeof value === "boolean"
        ? { value }
        : fail(field.key, "invalid_type", `${name} must be true or false.`);
    case "select": {
      const choices = field.options.choices ?? [];
      return typeof value === "string" && choices.includes(value)
        ? { value }
        : fail(
            field.key,
            "invalid_choice",
            `${name} must be one of ${choices.map((choice) => JSON.stringify(choice)).join(", ")}.`,
          );
    }
  }
}

/**
 * A body's `custom_fields` against the company's fields of the resource: on a create (`partial`
 * false) every field's value (null when not sent) with each required one present; on an update the
 * keys sent, null clearing one. Every problem at once, each named `custom_fields.<key>`.
 */
export function checkCustomValues(
  fields: readonly CustomField[],
  sent: unknown,
  partial: boolean,
): { values?: Record<string, unknown>; errors: FieldError[] } {
  const errors: FieldError[] = [];
  // null sends no value, as leaving the member out does.
  if (sent === null) sent = undefined;
  if (sent !== undefined && (typeof sent !== "object" || sent === null || Array.isArray(sent))) {
    errors.push({
      field: "custom_fields",
      code: "invalid_type",
      message:
        'custom_fields must be an object of your company\'s own fields, e.g. {"union_no": "A-1"}.',
    });
    return { errors };
  }
  const given = (sent ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(given))
    if (!fields.some((field) => field.key === key))
      errors.push(
        fail(
          key,
          "unknown_field",
          `${key} is not a custom field of this resource; ${
            fields.length > 0
              ? `its custom fields are ${fields.map((field) => field.key).join(", ")}`
              : "it has no custom fields"
          } (GET /v1/custom-fields).`,
        ),
      );
  const values: Record<string, unknown> = {};
  for (const field of fields) {
    const present = Object.hasOwn(given, field.key) && given[field.key] !== undefined;
    const value = present ? given[field.key] : null;
    if (value === null) {
      if (field.required && (present || !partial))
        errors.push(fail(field.key, "required", `custom_fields.${field.key} is required.`));
      if (present || !partial) values[field.key] = null;
      continue;
    }
    const checked = checkCustomValue(field, value);
    if ("field" in checked) errors.push(checked);
    else values[field.key] = checked.value;
  }
  return { values: sent === undefined && partial ? undefined : values, errors };
}

/** The field a unique custom field's values are held under in a write's unique values. */
export const customUniqueName = (key: string): string => `custom_fields.${key}`;

/** A value as unique checks compare it (writes/unique-values.ts): text as it is, numbers canonical. */
export function uniqueTextOf(field: CustomField, value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (field.type === "decimal" || field.type === "money" || field.type === "integer")
    return normalizeDecimal(value);
  return String(value);
}

/** The index column a field's values are kept in. */
export function indexColumnOf(type: CustomFieldType): "value_text" | "value_number" | "value_date" {
  if (type === "date") return "value_date";
  if (type === "text" || type === "select") return "value_text";
  return "value_number";
}

/** A value as its index column holds it: a text's first 255 characters, a boolean as 0 or 1. */
export function indexedValue(field: CustomField, value: unknown): string | number {
  if (field.type === "boolean") return value ? 1 : 0;
  if (field.type === "text") return [...String(value)].slice(0, INDEXED_TEXT_LENGTH).join("");
  return value as string | number;
}
