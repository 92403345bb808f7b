// The company's custom fields as the CLI uses them (docs/cli.md, "Custom fields"): a definition's
// value travels as the member `custom_fields.<key>` of a flat row (a CSV column, a key=value
// argument), read by its type as a built-in field of that kind is, and nested under
// `custom_fields` in the body the API takes.
import {
  type CustomField,
  type CustomFieldResource,
  type CustomFieldType,
  type ErpClient,
  ErpError,
  type RequestOptions,
} from "@erp/sdk";
import { UsageError } from "./usage-error.ts";
import { type FieldKind, normalise } from "./import/values.ts";

export type { CustomFieldType };

/** What the CLI needs of a definition (GET /v1/custom-fields). */
export type CustomFieldDefinition = Pick<CustomField, "key" | "label" | "type"> &
  Partial<Pick<CustomField, "required" | "options" | "description">>;

/** The prefix of a custom field's member in a flat row: `custom_fields.union_no`. */
export const CUSTOM_PREFIX = "custom_fields.";

/** `union_no` → `custom_fields.union_no`. */
export const customMember = (key: string): string => `${CUSTOM_PREFIX}${key}`;

/** How a cell or a typed value of a custom field is read. */
const READINGS: Record<CustomFieldType, FieldKind> = {
  text: "text",
  select: "text",
  integer: "integer",
  decimal: "decimal",
  money: "amount",
  date: "date",
  boolean: "boolean",
};

export const readingOf = (type: CustomFieldType): FieldKind => READINGS[type];

/** The SDK's kind a column of this type is written as (an export's typed cells). */
export function collectionKindOf(type: CustomFieldType): "money" | "date" | "text" {
  return type === "money" || type === "date" ? type : "text";
}

/** A hint of what a field holds, for help texts: `date YYYY-MM-DD, required`. */
export function hintOf(definition: CustomFieldDefinition): string {
  const choices = definition.options?.choices;
  const what =
    definition.type === "select" && choices
      ? choices.join("|")
      : definition.type === "date"
        ? "date YYYY-MM-DD"
        : definition.type === "money"
          ? "amount, e.g. 1250.00"
          : definition.type === "boolean"
            ? "true|false"
            : definition.type === "text"
              ? `text ≤${definition.options?.max_length ?? 255}`
              : definition.type;
  return `${what}${definition.required ? ", required" : ""} (${definition.label})`;
}

type Json = Record<string, unknown>;

/**
 * A flat row's `custom_fields.<key>` members moved under `custom_fields` (merged with one the row
 * already has); a row without any is returned as it is.
 */
export function nestCustomFields(row: Readonly<Json>): Json {
  let custom: Json | undefined;
  const out: Json = {};
  for (const [member, value] of Object.entries(row)) {
    if (member.startsWith(CUSTOM_PREFIX)) {
      custom ??= {};
      custom[member.slice(CUSTOM_PREFIX.length)] = value;
    } else out[member] = value;
  }
  if (!custom) return out;
  const given = out.custom_fields;
  out.custom_fields =
    given !== null && typeof given === "object" && !Array.isArray(given)
      ? { ...(given as Json), ...custom }
      : custom;
  return out;
}

/** The company's custom fields of one resource, in the order they were defined. */
export async function customFieldsOf(
  erp: ErpClient,
  resource: string,
  options: RequestOptions = {},
): Promise<CustomFieldDefinition[]> {
  try {
    return await erp.customFields.list({ resource: resource as CustomFieldResource }, options);
  } catch (error) {
    // A refused token is told by the command's own request (an import's summary says what was not
    // sent); an API without custom fields has none.
    if (error instanceof ErpError && (error.status === 401 || error.code === "route_not_found"))
      return [];
    throw error;
  }
}

/**
 * A body typed as person wrote it (`custom_fields.boot_allowance=€1,250.50`): each custom value given
 * as text read by its field's type, as an import reads a cell (a value the CLI cannot read is a usage
 * error naming the field), then nested under `custom_fields`. The definitions are read only when a
 * custom value is given as text; a key the company lacks is left for the API to refuse (422).
 */
export async function typedCustomValues(
  body: Readonly<Json>,
  definitions: () => Promise<readonly CustomFieldDefinition[]>,
): Promise<Json> {
  const given = Object.entries(body).filter(
    ([member, value]) => member.startsWith(CUSTOM_PREFIX) && typeof value === "string",
  );
  if (given.length === 0) return nestCustomFields(body);
  const byKey = new Map((await definitions()).map((field) => [field.key, field]));
  const typed: Json = { ...body };
  const problems: string[] = [];
  for (const [member, value] of given) {
    const field = byKey.get(member.slice(CUSTOM_PREFIX.length));
    if (!field) continue;
    const read = normalise(value as string, readingOf(field.type), {
      decimalComma: false,
      dateFormat: undefined,
    });
    if (!("error" in read)) {
      typed[member] = read.value;
      continue;
    }
    // An argument has no --date-format: a date is YYYY-MM-DD.
    const why =
      field.type === "date" ? `${JSON.stringify(value)} is not a date as YYYY-MM-DD` : read.error;
    problems.push(`${member}: ${why}`);
  }
  if (problems.length > 0) throw new UsageError(problems.join("\n"));
  return nestCustomFields(typed);
}
