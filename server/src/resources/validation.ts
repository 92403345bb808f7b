// Checks a write body against a definition in one pass and says, per field, what is wrong in a
// sentence a person can act on. Values come back normalised for the database (money as a
// 2-decimal string). Checks that need the database (references, uniqueness) live in writes/.
import { bodyNotObject } from "../refusals/catalogue.ts";
import type { FieldError } from "../refusals/refusal.ts";
import { caselessText } from "./caseless.ts";
import { CURRENCY_CODES } from "./currencies.ts";
import { checkCustomValues, type CustomField } from "./custom-fields.ts";
import type { FieldSpec, ResourceDefinition } from "./definition.ts";
import { isIdentifierText } from "./identifiers.ts";
import { dateOrderRules, fieldIndex } from "./fields.ts";
import { characterCount, isCalendarDate, normalizeMoney } from "./validation-values.ts";

export { characterCount, normalizeMoney } from "./validation-values.ts";

export interface ValidatedBody {
  /** Column values of the fields that passed, normalised. */
  values: Record<string, unknown>;
  errors: FieldError[];
}

// Deliberately loose: one @, something on each side, a dot in the domain, no spaces.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const fail = (field: string, code: string, message: string): FieldError => ({
  field,
  code,
  message,
});

type Checked = { value: unknown } | FieldError;

function checkText(
  name: string,
  value: unknown,
  max: number | undefined,
  identifier = false,
): { value: string } | FieldError {
  if (typeof value !== "string")
    return fail(name, "invalid_type", `${name} must be text (a JSON string).`);
  if (!value.isWellFormed())
    return fail(
      name,
      "invalid_text",
      `${name} contains an unpaired UTF-16 surrogate, which is not a character; send well-formed Unicode text.`,
    );
  const length = characterCount(value);
  if (max !== undefined && length > max)
    return fail(name, "too_long", `${name} must be at most ${max} characters (it has ${length}).`);
  if (identifier && length === 0)
    return fail(
      name,
      "too_short",
      `${name} must be 1-${max} characters; leave it out (or null) for a record without one.`,
    );
  if (identifier && !isIdentifierText(value)) {
    return fail(
      name,
      "invalid_text",
      `${name} must not contain control characters (NUL, tab, line breaks, U+0080-U+009F) or ` +
        `bidirectional-text controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069).`,
    );
  }
  return { value };
}

const EMAIL_MESSAGE = (name: string): string =>
  `${name} must be an email address like ann@example.com.`;

/** One sent, non-null value against its field: the normalised value, or what is wrong with it. */
function checkValue(name: string, value: unknown, spec: FieldSpec): Checked {
  switch (spec.type) {
    case "text":
      return checkText(
        name,
        spec.caseless && typeof value === "string" ? caselessText(value) : value,
        spec.max,
        spec.identifier,
      );
    case "email": {
      const text = checkText(name, value, spec.max);
      if ("field" in text)
        return text.code === "too_long" ? text : fail(name, "invalid_email", EMAIL_MESSAGE(name));
      return EMAIL.test(text.value) ? text : fail(name, "invalid_email", EMAIL_MESSAGE(name));
    }
    case "money": {
      const money = normalizeMoney(value);
      return money === undefined
        ? fail(
            name,
            "invalid_money",
            `${name} must be an amount of money: at least 0, at most 2 decimals, as a string or ` +
              `a number, e.g. "12.50".`,
          )
        : { value: money };
    }
    case "date":
      return typeof value === "string" && isCalendarDate(value)
        ? { value }
        : fail(
            name,
            "invalid_date",
            `${name} must be a calendar date written YYYY-MM-DD (years 1000-9999), e.g. "2026-03-01".`,
          );
    case "enum":
      return typeof value === "string" && spec.values.includes(value)
        ? { value }
        : fail(
            name,
            "invalid_enum",
            `${name} must be one of ${spec.values.join(", ")} (upper case).`,
          );
    case "currency":
      return typeof value === "string" && CURRENCY_CODES.has(value)
        ? { value }
        : fail(
            name,
            "invalid_currency",
            `${name} must be an ISO 4217 currency code in upper case, such as USD, EUR or GBP.`,
          );
    case "ref":
      return typeof value === "number" && Number.isSafeInteger(value) && value >= 1
        ? { value }
        : fail(
            name,
            "invalid_type",
            `${name} must be the id (a whole number from 1) of one of your ${spec.target.name} records.`,
          );
    case "boolean":
      return typeof value === "boolean"
        ? { value }
        : fail(name, "invalid_type", `${name} must be true or false.`);
    case "custom":
      // Checked against the company's fields by validateBody.
      return { value };
  }
}

/** A body's members, or a 422 when it is not a JSON object (`shape` says what it must be). */
export function bodyMembers(body: unknown, shape: string): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw bodyNotObject(shape);
  return body as Record<string, unknown>;
}
/**
 * Every problem with a create (`partial` false) or update (`partial` true) body at once:
 * fields it may not send, missing required ones, and each sent field's type, length and format.
 */
export function validateBody(
  def: ResourceDefinition,
  body: unknown,
  partial: boolean,
  custom: readonly CustomField[] = [],
): ValidatedBody {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return {
      values: {},
      errors: [
        fail(
          "body",
          "invalid_type",
          'The body must be a JSON object of fields, e.g. {"name": "…"}.',
        ),
      ],
    };
  }
  const sent = body as Record<string, unknown>;
  const { writable, readOnly } = fieldIndex(def);
  const values: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const name of Object.keys(sent)) {
    if (writable.has(name)) continue;
    errors.push(
      readOnly.has(name)
        ? fail(name, "read_only", `${name} is set by the server; leave it out of the body.`)
        : fail(
            name,
            "unknown_field",
            `${name} is not a field of ${def.name}; the writable fields are ${[...writable.keys()].join(", ")}.`,
          ),
    );
  }
  for (const [name, spec] of writable) {
    if (spec.type === "custom") {
      const checked = checkCustomValues(custom, sent[name], partial);
      errors.push(...checked.errors);
      if (checked.values) values[name] = checked.values;
      continue;
    }
    const required = !partial && def.required.includes(name);
    if (!Object.hasOwn(sent, name) || sent[name] === undefined) {
      if (required) errors.push(fail(name, "required", `${name} is required.`));
      continue;
    }
    const value = sent[name];
    if (value === null) {
      if (spec.nullable) values[name] = null;
      else
        errors.push(
          required
            ? fail(name, "required", `${name} is required and cannot be null.`)
            : fail(name, "invalid_type", `${name} cannot be null; send a value or leave it out.`),
        );
      continue;
    }
    const checked = checkValue(name, value, spec);
    if ("field" in checked) errors.push(checked);
    else if (
      def.required.includes(name) &&
      typeof checked.value === "string" &&
      checked.value.trim() === ""
    ) {
      errors.push(fail(name, "too_short", `${name} must not be empty.`));
    } else values[name] = checked.value;
  }
  return { values, errors };
}

/** Date-order rules between fields, checked on the record as it would be stored. */
export function checkDateOrder(
  def: ResourceDefinition,
  merged: Record<string, unknown>,
): FieldError[] {
  const errors: FieldError[] = [];
  for (const [name, notBefore] of dateOrderRules(def)) {
    const value = merged[name];
    const floor = merged[notBefore];
    if (typeof value === "string" && typeof floor === "string" && value < floor) {
      errors.push(fail(name, "date_order", `${name} must not be before ${notBefore} (${floor}).`));
    }
  }
  return errors;
}
