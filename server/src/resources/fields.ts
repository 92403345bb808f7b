// Field specs → TypeBox schemas (input and output), input normalisation and the checks a
// schema cannot express (two-decimal money given as a number, real calendar dates, date order).
import { Type, type TSchema } from "@sinclair/typebox";
import { t } from "elysia";
import type { FieldError } from "../http/problem.ts";
import type { FieldSpec, ResourceDefinition } from "./definition.ts";
import { createExample, updateExample } from "./examples.ts";

const MONEY_PATTERN = "^[0-9]{1,12}(\\.[0-9]{1,2})?$";
const MONEY_MAX = 999_999_999_999.99;
const DATE_PATTERN = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$";
const TIMESTAMP_PATTERN = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z$";

export function describeField(spec: FieldSpec): string {
  const own = spec.description ? `${spec.description} ` : "";
  switch (spec.type) {
    case "text": return `${own}Text of at most ${spec.max} characters${spec.unique ? ", unique per company among live records" : ""}.`;
    case "email": return `${own}An email address.`;
    case "money": return `${own}Money: a decimal string with 2 decimals on output; input is a string or a number, at least 0, with at most 2 decimals.`;
    case "date": return `${own}A calendar date, YYYY-MM-DD${spec.notBefore ? `, not before ${spec.notBefore}` : ""}.`;
    case "enum": return `${own}One of ${spec.values.join(", ")}.`;
    case "currency": return `${own}An ISO 4217 currency code of 3 upper-case letters (default ${spec.default}).`;
    case "ref": return `${own}The id of a live ${spec.target.resource} record of your company${spec.requiredStatus ? ` in status ${spec.requiredStatus}` : ""}${spec.refusedStatus ? `, not ${spec.refusedStatus}` : ""}.`;
    case "boolean": return `${own}true or false.`;
  }
}

/**
 * t.UnionEnum defaults to its first value, and Elysia fills body defaults in: a PATCH that
 * did not send `status` would set it to the first status. Defaults belong to creates only.
 */
function withoutDefault(schema: TSchema): TSchema {
  delete schema.default;
  return schema;
}

function baseInputSchema(spec: FieldSpec): TSchema {
  const description = describeField(spec);
  switch (spec.type) {
    case "text": return t.String({ maxLength: spec.max, description });
    case "email": return t.String({ format: "email", maxLength: 254, description });
    case "money": return t.Union([t.String({ pattern: MONEY_PATTERN }), Type.Number({ minimum: 0, maximum: MONEY_MAX })], { description });
    case "date": return t.String({ format: "date", description });
    case "enum": return withoutDefault(t.UnionEnum(spec.values as [string, ...string[]], { description }));
    case "currency": return t.String({ pattern: "^[A-Z]{3}$", description });
    case "ref": return Type.Integer({ minimum: 1, description });
    case "boolean": return Type.Boolean({ description });
  }
}

function baseOutputSchema(spec: FieldSpec): TSchema {
  const description = describeField(spec);
  switch (spec.type) {
    case "text":
    case "email": return Type.String({ description });
    case "money": return Type.String({ pattern: "^[0-9]+\\.[0-9]{2}$", description, examples: ["1250.00"] });
    case "date": return Type.String({ pattern: DATE_PATTERN, description, examples: ["2026-03-01"] });
    case "enum": return Type.String({ enum: [...spec.values], description });
    case "currency": return Type.String({ pattern: "^[A-Z]{3}$", description, examples: ["USD"] });
    case "ref": return Type.Integer({ description });
    case "boolean": return Type.Boolean({ description });
  }
}

const nullable = (schema: TSchema): TSchema => t.Union([schema, t.Null()]);

/** A required text field (a title) must also be non-empty. */
function inputSchema(def: ResourceDefinition, name: string, spec: FieldSpec): TSchema {
  const schema = baseInputSchema(spec);
  if (spec.type === "text" && def.required.includes(name)) schema.minLength = 1;
  return schema;
}

function hasDefault(spec: FieldSpec): boolean {
  return "default" in spec && spec.default !== undefined;
}

export function statusSpec(def: ResourceDefinition): FieldSpec | undefined {
  return def.status ? { type: "enum", values: def.status.values, default: def.status.initial[0] } : undefined;
}

/** Every writable field, status included, in declaration order. */
export function writableFields(def: ResourceDefinition): [string, FieldSpec][] {
  const status = statusSpec(def);
  return [...Object.entries(def.fields), ...(status ? [["status", status] as [string, FieldSpec]] : [])];
}

export function createBodySchema(def: ResourceDefinition): TSchema {
  const properties: Record<string, TSchema> = {};
  for (const [name, spec] of writableFields(def)) {
    const required = def.required.includes(name);
    const schema = inputSchema(def, name, spec);
    properties[name] = required ? schema : t.Optional(hasDefault(spec) ? schema : nullable(schema));
  }
  return t.Object(properties, { additionalProperties: false, title: `${def.singular}Create`, examples: [createExample(def)] });
}

export function updateBodySchema(def: ResourceDefinition): TSchema {
  const properties: Record<string, TSchema> = {};
  for (const [name, spec] of writableFields(def)) {
    const schema = inputSchema(def, name, spec);
    const nonNull = def.required.includes(name) || hasDefault(spec);
    properties[name] = t.Optional(nonNull ? schema : nullable(schema));
  }
  return t.Object(properties, { additionalProperties: false, title: `${def.singular}Update`, examples: [updateExample(def)] });
}

/** The fields a record carries, in output order, with whether each may be null. */
export function recordFields(def: ResourceDefinition): [string, FieldSpec, boolean][] {
  const readOnly = Object.entries(def.readOnly ?? {}).map(([name, spec]): [string, FieldSpec, boolean] => [name, spec, false]);
  const writable = writableFields(def).map(([name, spec]): [string, FieldSpec, boolean] =>
    [name, spec, !(def.required.includes(name) || hasDefault(spec))]);
  return [...readOnly, ...writable];
}

export function recordSchema(def: ResourceDefinition): TSchema {
  const properties: Record<string, TSchema> = { id: Type.Integer({ description: "Record identifier." }) };
  for (const [name, spec, isNullable] of recordFields(def)) {
    const schema = baseOutputSchema(spec);
    properties[name] = isNullable ? nullable(schema) : schema;
  }
  properties.created_at = Type.String({ pattern: TIMESTAMP_PATTERN, description: "RFC 3339 UTC timestamp." });
  properties.updated_at = Type.String({ pattern: TIMESTAMP_PATTERN, description: "RFC 3339 UTC timestamp." });
  return Type.Object(properties, { additionalProperties: false, title: def.singular });
}

/** A record narrowed by `fields=`: its id and whichever of the other members were picked. */
export function sparseRecordSchema(def: ResourceDefinition): TSchema {
  const full = recordSchema(def) as TSchema & { properties: Record<string, TSchema> };
  const properties = Object.fromEntries(Object.entries(full.properties).map(([name, schema]) => [name, name === "id" ? schema : Type.Optional(schema)]));
  return Type.Object(properties, { additionalProperties: false, title: `${def.singular}Sparse`, description: `A ${def.singular.toLowerCase()} read with \`fields=\`: id plus the fields picked.` });
}

/** What a read returns: the whole record, or with `fields=` the picked part of it. */
export function readableRecordSchema(def: ResourceDefinition): TSchema {
  return Type.Union([recordSchema(def), sparseRecordSchema(def)]);
}

/** Names a `fields=` parameter may pick. */
export function readableFieldNames(def: ResourceDefinition): string[] {
  return ["id", ...recordFields(def).map(([name]) => name), "created_at", "updated_at"];
}

/**
 * Turns a validated body into column values: money to its 2-decimal string, and reports
 * what the schema could not check. Returns the values and the field errors found.
 */
export function normalizeInput(def: ResourceDefinition, body: Record<string, unknown>): { values: Record<string, unknown>; errors: FieldError[] } {
  const values: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  const specs = Object.fromEntries(writableFields(def));
  for (const [name, value] of Object.entries(body)) {
    const spec = specs[name];
    if (spec?.type === "money" && value !== null) {
      const money = normalizeMoney(value as string | number);
      if (money === undefined) errors.push({ field: name, code: "invalid_money", message: describeField(spec) });
      values[name] = money;
    } else if (spec?.type === "date" && typeof value === "string" && !isCalendarDate(value)) {
      errors.push({ field: name, code: "invalid_date", message: `${name} must be a real calendar date (YYYY-MM-DD, years 1000-9999), not "${value}".` });
    } else {
      values[name] = value;
    }
  }
  return { values, errors };
}

function isCalendarDate(value: string): boolean {
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(value) || value < "1000") return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
}

function normalizeMoney(value: string | number): string | undefined {
  if (typeof value === "string") {
    const [whole = "0", fraction = ""] = value.split(".");
    return `${BigInt(whole)}.${fraction.padEnd(2, "0")}`;
  }
  if (!Number.isFinite(value) || value < 0 || Math.round(value * 100) / 100 !== value) return undefined;
  return value.toFixed(2);
}

/** Default values of fields a create did not send. */
export function createDefaults(def: ResourceDefinition): Record<string, unknown> {
  const defaults: Record<string, unknown> = {};
  for (const [name, spec] of writableFields(def)) {
    if (hasDefault(spec)) defaults[name] = (spec as { default: unknown }).default;
  }
  return defaults;
}

/** Date-order rules between fields, checked on the record as it would be stored. */
export function checkDateOrder(def: ResourceDefinition, merged: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  for (const [name, spec] of Object.entries(def.fields)) {
    if (spec.type !== "date" || !spec.notBefore) continue;
    const value = merged[name];
    const floor = merged[spec.notBefore];
    if (typeof value === "string" && typeof floor === "string" && value < floor) {
      errors.push({ field: name, code: "date_order", message: `${name} must not be before ${spec.notBefore} (${floor}).` });
    }
  }
  return errors;
}
