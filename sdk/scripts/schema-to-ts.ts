// JSON Schema (the OpenAPI 3.1 dialect) to TypeScript type text, for the SDK's type generator.

/** A JSON Schema as found in an OpenAPI 3.1 document. */
export type JsonSchema = boolean | { [keyword: string]: unknown };

/** What the conversion needs from the document being generated. */
export interface SchemaContext {
  /** The schema a `$ref` points to. */
  resolve(ref: string): JsonSchema;
  /** The type name a `$ref` is declared under, or undefined to inline it. */
  reference(ref: string): string | undefined;
  /** The alias name to use for an enum found at `property`; it is emitted once per name. */
  enumAlias(property: string, union: string): string;
}

/** The TypeScript type of `schema`; `property` names the enum alias when the schema is an enum. */
export function typeText(
  schema: JsonSchema | undefined,
  context: SchemaContext,
  indent = "",
  property?: string,
): string {
  if (schema === undefined || schema === true) return "unknown";
  if (schema === false) return "never";
  if (typeof schema.$ref === "string") {
    return (
      context.reference(schema.$ref) ??
      typeText(context.resolve(schema.$ref), context, indent, property)
    );
  }
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) {
    const union = schema.enum.map((value) => JSON.stringify(value)).join(" | ");
    return property ? context.enumAlias(property, union) : union;
  }
  const members = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (members) return union(members.map((member) => typeText(member, context, indent, property)));
  if (Array.isArray(schema.allOf)) {
    return (schema.allOf as JsonSchema[])
      .map((part) => parenthesise(typeText(part, context, indent, property)))
      .join(" & ");
  }
  if (Array.isArray(schema.type)) {
    return union(
      (schema.type as string[]).map((type) =>
        typeText({ ...schema, type }, context, indent, property),
      ),
    );
  }
  switch (schema.type) {
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      return `${parenthesise(typeText(schema.items as JsonSchema | undefined, context, indent))}[]`;
    case "object":
      return objectText(schema, context, indent);
  }
  return schema.properties ? objectText(schema, context, indent) : "unknown";
}

/** An object type literal, one documented property per line. */
export function objectText(
  schema: { [keyword: string]: unknown },
  context: SchemaContext,
  indent: string,
): string {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
  if (properties.length === 0) {
    // A map: `additionalProperties` or (TypeBox's Record) one `patternProperties` entry gives its values.
    const patterns = Object.values((schema.patternProperties ?? {}) as Record<string, JsonSchema>);
    const values =
      patterns.length > 0
        ? union(patterns.map((value) => typeText(value, context, indent)))
        : schema.additionalProperties;
    if (typeof values === "string") return `Record<string, ${values}>`;
    return values === undefined || values === false
      ? "Record<never, never>"
      : `Record<string, ${typeText(values as JsonSchema, context, indent)}>`;
  }
  const required = new Set((schema.required ?? []) as string[]);
  const inner = `${indent}  `;
  const lines = properties.map(([name, property]) => {
    const doc = descriptionOf(property);
    const comment = doc ? `${inner}/** ${doc.replaceAll("*/", "*\\/")} */\n` : "";
    const key = /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
    return `${comment}${inner}${key}${required.has(name) ? "" : "?"}: ${typeText(property, context, inner, name)};`;
  });
  return `{\n${lines.join("\n")}\n${indent}}`;
}

/** A schema's description, or that of the non-null member of a nullable union. */
export function descriptionOf(schema: JsonSchema | undefined): string | undefined {
  if (typeof schema !== "object") return undefined;
  if (typeof schema.description === "string") return schema.description.replace(/\s+/g, " ").trim();
  const members = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  return members?.map(descriptionOf).find((doc) => doc !== undefined);
}

function union(types: string[]): string {
  const unique = [...new Set(types.flatMap((type) => splitTopLevelUnion(type)))];
  return unique.join(" | ");
}

// Flattening "A | B" members keeps `(A | B) | null` from printing its parentheses.
function splitTopLevelUnion(type: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < type.length; i++) {
    const char = type[i];
    if (char === "{" || char === "(" || char === "<" || char === "[") depth++;
    else if (char === "}" || char === ")" || char === ">" || char === "]") depth--;
    else if (depth === 0 && type.startsWith(" | ", i)) {
      parts.push(type.slice(start, i));
      start = i + 3;
    }
  }
  parts.push(type.slice(start));
  return parts;
}

function parenthesise(type: string): string {
  return splitTopLevelUnion(type).length > 1 || type.includes(" & ") ? `(${type})` : type;
}
