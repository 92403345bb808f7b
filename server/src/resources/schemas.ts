// JSON Schemas of a definition's bodies and records for the OpenAPI document (and from it the
// SDK): what validation.ts accepts and what store.ts returns, said as schemas. Each `title`
// names a component.
import { Type, type TSchema, type TString } from "@sinclair/typebox";
import type { FieldSpec, ResourceDefinition } from "./definition.ts";
import { createExample, updateExample } from "./examples.ts";
import { expandables, hasTimestamps, recordFields, writableFields } from "./fields.ts";
import { IDENTIFIER_PATTERN } from "./identifiers.ts";
import { sensitiveScope } from "./scopes.ts";

const MONEY_PATTERN = "^[0-9]{1,12}(\\.[0-9]{1,2})?$";
const MONEY_MAX = 999_999_999_999.99;
const TIMESTAMP_PATTERN = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z$";

/** An RFC 3339 UTC timestamp as we write them; the example lets mock servers answer valid ones. */
export function timestampSchema(description = "RFC 3339 UTC timestamp."): TString {
  return Type.String({
    pattern: TIMESTAMP_PATTERN,
    description,
    examples: ["2026-03-01T09:30:00.000Z"],
  });
}

/** How unique values compare (docs/concepts.md): as the database's binary unique keys do. */
const UNIQUENESS =
  ", unique per company among live records: values compare exactly (`ABC`, `abc` and `àbc` are " +
  "three values), except that trailing spaces do not count (`abc ` is `abc`)";

/** How a caseless field's values are unique (docs/concepts.md, "Lookups"). */
const CASELESS_UNIQUENESS =
  ", stored without surrounding spaces and unique per company among live records ignoring case: " +
  "`Electrical`, ` electrical` and `ELECTRICAL` are one name; accents count (`Électrique` and " +
  "`Electrique` are two)";

export function describeField(spec: FieldSpec): string {
  const own = spec.description ? `${spec.description} ` : "";
  switch (spec.type) {
    case "text":
      return `${own}${spec.identifier ? `Text of 1-${spec.max} characters` : `Text of at most ${spec.max} characters`}${
        spec.unique ? (spec.caseless ? CASELESS_UNIQUENESS : UNIQUENESS) : ""
      }.`;
    case "email":
      return `${own}An email address.`;
    case "money":
      return (
        `${own}Money: a decimal string with 2 decimals on output; input is a string or a ` +
        `number, at least 0, with at most 2 decimals.`
      );
    case "date":
      return `${own}A calendar date, YYYY-MM-DD${spec.notBefore ? `, not before ${spec.notBefore}` : ""}.`;
    case "enum":
      return `${own}One of ${spec.values.join(", ")}.`;
    case "currency":
      return `${own}An ISO 4217 currency code (default ${spec.default}).`;
    case "ref":
      return (
        `${own}The id of a live ${spec.target.name} record of your ` +
        `company${spec.requiredStatus ? ` in status ${spec.requiredStatus}` : ""}` +
        `${spec.refusedStatus ? `, not ${spec.refusedStatus}` : ""}.`
      );
    case "boolean":
      return `${own}true or false.`;
    case "custom":
      return own.trim();
  }
}

function inputSchema(spec: FieldSpec, title: boolean): TSchema {
  const description = describeField(spec);
  switch (spec.type) {
    case "text":
      return Type.String({
        maxLength: spec.max,
        ...(title || spec.identifier ? { minLength: 1 } : {}),
        ...(spec.identifier ? { pattern: IDENTIFIER_PATTERN } : {}),
        description,
      });
    case "email":
      return Type.String({ format: "email", maxLength: spec.max, description });
    case "money":
      return Type.Union(
        [
          Type.String({ pattern: MONEY_PATTERN }),
          Type.Number({ minimum: 0, maximum: MONEY_MAX, multipleOf: 0.01 }),
        ],
        { description },
      );
    case "date":
      return Type.String({ format: "date", description });
    case "enum":
      return Type.String({ enum: [...spec.values], description });
    case "currency":
      return Type.String({ pattern: "^[A-Z]{3}$", description });
    case "ref":
      return Type.Integer({ minimum: 1, description });
    case "boolean":
      return Type.Boolean({ description });
    case "custom":
      return customValuesSchema(description);
  }
}

function outputSchema(spec: FieldSpec): TSchema {
  const description = describeField(spec);
  switch (spec.type) {
    case "text":
    case "email":
      return Type.String({ description });
    case "money":
      return Type.String({ pattern: "^[0-9]+\\.[0-9]{2}$", description, examples: ["1250.00"] });
    case "date":
      return Type.String({
        pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
        description,
        examples: ["2026-03-01"],
      });
    case "enum":
      return Type.String({ enum: [...spec.values], description });
    case "currency":
      return Type.String({ pattern: "^[A-Z]{3}$", description, examples: ["USD"] });
    case "ref":
      return Type.Integer({ description });
    case "boolean":
      return Type.Boolean({ description });
    case "custom":
      return customValuesSchema(description);
  }
}

/**
 * The public document's `custom_fields`: an object of values (text, numbers, booleans, null). The
 * document fetched with a token describes the company's own fields instead (surfaces/).
 */
function customValuesSchema(description: string): TSchema {
  return Type.Record(
    Type.String({ pattern: "^[a-z][a-z0-9_]{0,39}$" }),
    Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]),
    { description },
  );
}

const nullable = (schema: TSchema): TSchema => Type.Union([schema, Type.Null()]);

/**
 * A sensitive field's schema (docs/tokens.md): marked `x-sensitive`, its description naming the
 * scope that reads and writes it; on records it is optional, absent for a token without it.
 */
function sensitive(def: ResourceDefinition, spec: FieldSpec, schema: TSchema): TSchema {
  if (!spec.sensitive) return schema;
  const scope = sensitiveScope(def);
  const description =
    `${describeField(spec)} Sensitive: read and written only with the ${scope} scope (or ` +
    `sensitive); absent for other tokens, and 403 insufficient_scope when they filter, sort ` +
    `or write it.`;
  // A nullable field's members carry the field's description too: the document keeps theirs.
  const members = (schema.anyOf as TSchema[] | undefined)?.map((member) =>
    member.description === undefined ? member : { ...member, description },
  );
  return { ...schema, ...(members ? { anyOf: members } : {}), "x-sensitive": true, description };
}

/** The status a create may send: only the statuses a record can start in. */
function creatable(def: ResourceDefinition, name: string, spec: FieldSpec): FieldSpec {
  return name === "status" && def.status && spec.type === "enum"
    ? { ...spec, values: def.status.initial }
    : spec;
}

export function createBodySchema(def: ResourceDefinition): TSchema {
  const properties: Record<string, TSchema> = {};
  for (const [name, declared] of writableFields(def)) {
    const spec = creatable(def, name, declared);
    const required = def.required.includes(name);
    const schema = inputSchema(spec, required);
    const field = sensitive(def, spec, spec.nullable && !required ? nullable(schema) : schema);
    properties[name] = required ? field : Type.Optional(field);
  }
  return Type.Object(properties, {
    additionalProperties: false,
    title: `${def.singular}Create`,
    examples: [createExample(def)],
  });
}

export function updateBodySchema(def: ResourceDefinition): TSchema {
  const properties: Record<string, TSchema> = {};
  for (const [name, spec] of writableFields(def)) {
    const schema = inputSchema(spec, def.required.includes(name));
    properties[name] = Type.Optional(
      sensitive(def, spec, spec.nullable ? nullable(schema) : schema),
    );
  }
  return Type.Object(properties, {
    additionalProperties: false,
    title: `${def.singular}Update`,
    examples: [updateExample(def)],
  });
}

/** A deleted record, embedded by `expand=`: its id and that it is gone. */
const deletedRecord = Type.Object(
  { id: Type.Integer({ description: "Record identifier." }), deleted: Type.Literal(true) },
  {
    additionalProperties: false,
    title: "DeletedRecord",
    description: "A referenced record that was deleted: its id, and that it is gone.",
  },
);

/**
 * An embedded reference (`expand=`): the whole record of the resource it names (its own references
 * embedded when the expand path goes on), `{id, deleted: true}`, or null.
 */
const embedded = (reference: { name: string; field: string; target: ResourceDefinition }) =>
  Type.Optional(
    Type.Union([recordSchema(reference.target), deletedRecord, Type.Null()], {
      description:
        `Only with expand=${reference.name}: the ${reference.target.singular} ` +
        `${reference.field} names, as GET returns it (null when ${reference.field} is empty; ` +
        `{id, deleted: true} when it was deleted).`,
    }),
  );

export function recordSchema(def: ResourceDefinition): TSchema {
  const properties: Record<string, TSchema> = {
    id: Type.Integer({ description: "Record identifier." }),
  };
  for (const [name, spec] of recordFields(def)) {
    const schema = spec.nullable ? nullable(outputSchema(spec)) : outputSchema(spec);
    properties[name] = spec.sensitive ? Type.Optional(sensitive(def, spec, schema)) : schema;
  }
  // Only with `expand=`: the record a reference names (docs/api.md).
  for (const reference of expandables(def)) properties[reference.name] = embedded(reference);
  if (hasTimestamps(def)) {
    properties.created_at = timestampSchema();
    properties.updated_at = timestampSchema();
  }
  if (Object.hasOwn(def.table, "deleted_at")) {
    properties.deleted_at = Type.Optional(
      nullable(
        timestampSchema(
          "Only in lists with include_deleted=true: when the record was deleted, null while it is live.",
        ),
      ),
    );
  }
  return Type.Object(properties, { additionalProperties: false, title: def.singular });
}

/** A record narrowed by `fields=`: its id and whichever of the other members were picked. */
export function sparseRecordSchema(def: ResourceDefinition): TSchema {
  const full = recordSchema(def) as TSchema & { properties: Record<string, TSchema> };
  const properties = Object.fromEntries(
    Object.entries(full.properties).map(([name, schema]) => [
      name,
      name === "id" ? schema : Type.Optional(schema),
    ]),
  );
  return Type.Object(properties, {
    additionalProperties: false,
    title: `${def.singular}Sparse`,
    description: `A ${def.singular.toLowerCase()} read with \`fields=\`: id plus the fields picked.`,
  });
}

/** What a read returns: the whole record, or with `fields=` the picked part of it. */
