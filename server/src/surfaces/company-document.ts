// The OpenAPI document as one company sees it (docs/custom-fields.md): fetched with a token, each
// record's `custom_fields` is described exactly (every key with its type, a select's choices as an
// enum, required ones required on create) and each list takes its `cf.<key>` filters as query
// parameters, so a generator (openapi-typescript, …) makes a client typed for the company.
import type { CustomField } from "../resources/custom-fields.ts";
import { RESOURCES } from "../resources/registry.ts";

// biome-ignore lint/suspicious/noExplicitAny: the served document, walked and rewritten by path
type Json = Record<string, any>;

const DECIMAL = "^-?[0-9]{1,18}(\\.[0-9]{1,6})?$";
const MONEY = "^[0-9]{1,12}(\\.[0-9]{1,2})?$";

/** A field's value as a record shows it (`output`) or a write sends it. */
function valueSchema(field: CustomField, output: boolean): Json {
  const described = (schema: Json): Json => ({
    ...schema,
    title: undefined,
    description: field.description ? `${field.label}: ${field.description}` : field.label,
  });
  switch (field.type) {
    case "text":
      return described({ type: "string", maxLength: field.options.max_length ?? 255 });
    case "integer":
      return described({ type: "integer" });
    case "decimal":
      return described(
        output
          ? { type: "string", pattern: DECIMAL }
          : { anyOf: [{ type: "string", pattern: DECIMAL }, { type: "number" }] },
      );
    case "money":
      return described(
        output
          ? { type: "string", pattern: "^[0-9]+\\.[0-9]{2}$" }
          : {
              anyOf: [
                { type: "string", pattern: MONEY },
                { type: "number", minimum: 0 },
              ],
            },
      );
    case "date":
      return described({ type: "string", format: "date" });
    case "boolean":
      return described({ type: "boolean" });
    case "select":
      return described({ type: "string", enum: [...(field.options.choices ?? [])] });
  }
}

/** A value that may be null: on output an empty field, on a write a cleared one. */
function orNull(schema: Json): Json {
  const { description, ...rest } = schema;
  if (rest.enum)
    return { ...rest, type: ["string", "null"], enum: [...rest.enum, null], description };
  return { anyOf: [rest, { type: "null" }], description };
}

/** `custom_fields` of one schema: a record shown (`output`), a create's body, or an update's. */
function customFieldsSchema(
  fields: readonly CustomField[],
  kind: "output" | "create" | "update",
  base: Json,
): Json {
  const properties = Object.fromEntries(
    fields.map((field) => {
      const value = valueSchema(field, kind === "output");
      return [field.key, kind === "create" && field.required ? value : orNull(value)];
    }),
  );
  const required =
    kind === "output"
      ? fields.map((field) => field.key)
      : kind === "create"
        ? fields.filter((field) => field.required).map((field) => field.key)
        : [];
  return {
    description: base.description,
    type: "object",
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

/** The kind of a component schema of a resource's records, by its name. */
function kindOf(name: string, singular: string, schema: Json): "output" | "create" | "update" {
  if (name === `${singular}Create`) return "create";
  if (name.startsWith(singular) && /Update/.test(name)) return "update";
  return schema.required?.includes("custom_fields") || name.endsWith("Sparse")
    ? "output"
    : "update";
}

/** The list's query parameters of the company's fields of one resource. */
function listParameters(fields: readonly CustomField[]): Json[] {
  return fields.flatMap((field) => {
    const value = valueSchema(field, true);
    const equality = {
      name: `cf.${field.key}`,
      in: "query",
      required: false,
      description: `Only records whose ${field.label} is this value${field.type === "select" ? " (a,b: any of them)" : ""}.`,
      schema:
        field.type === "select"
          ? { type: "string" }
          : { type: "string", ...(value.pattern ? { pattern: value.pattern } : {}) },
    };
    const ranged = ["integer", "decimal", "money", "date"].includes(field.type);
    const ranges = ranged
      ? ["gte", "gt", "lt", "lte"].map((operator) => ({
          name: `cf.${field.key}[${operator}]`,
          in: "query",
          required: false,
          description: `Only records whose ${field.label} is ${operator} this value.`,
          schema: field.type === "date" ? { type: "string", format: "date" } : { type: "string" },
        }))
      : [];
    return [equality, ...ranges];
  });
}

/** The document with the company's fields in it (the public one is left as it is). */
export function companyDocument(document: Json, fields: readonly CustomField[]): Json {
  const typed = structuredClone(document);
  const schemas: Json = typed.components?.schemas ?? {};
  for (const def of RESOURCES) {
    const own = fields.filter((field) => field.resource === def.name);
    for (const [name, schema] of Object.entries<Json>(schemas)) {
      if (!name.startsWith(def.singular) || !schema.properties?.custom_fields) continue;
      if (
        RESOURCES.some(
          (other) =>
            other !== def &&
            name.startsWith(other.singular) &&
            other.singular.length > def.singular.length,
        )
      )
        continue;
      const kind = kindOf(name, def.singular, schema);
      schema.properties.custom_fields = customFieldsSchema(
        own,
        kind,
        schema.properties.custom_fields,
      );
      if (kind === "create" && own.some((field) => field.required))
        schema.required = [...new Set([...(schema.required ?? []), "custom_fields"])];
    }
    const list = typed.paths?.[`/v1/${def.name}`]?.get;
    if (list && own.length > 0)
      list.parameters = [...(list.parameters ?? []), ...listParameters(own)];
  }
  return typed;
}
