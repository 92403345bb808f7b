// Example request bodies derived from a definition: shown in the OpenAPI document and sent by
// the collection, so both must pass the server's own validation, and as often as they are sent.
import type { FieldSpec, ResourceDefinition } from "./definition.ts";
import { writableFields } from "./fields.ts";

const BY_NAME: Record<string, string> = {
  phone: "+1 555 0100",
  address: "1 Main Street, Springfield",
  billing_address: "1 Main Street, Springfield",
  tax_id: "US-123456789",
};

function exampleValue(def: ResourceDefinition, name: string, spec: FieldSpec): unknown {
  switch (spec.type) {
    case "text": {
      const text =
        name === def.required[0]
          ? `Example ${def.singular.toLowerCase()}`
          : (BY_NAME[name] ?? `Example ${name.replace(/_/g, " ")}`);
      return text.slice(0, spec.max);
    }
    case "email":
      return "office@example.com";
    case "money":
      return spec.default ?? "1250.00";
    case "date":
      return spec.notBefore ? "2026-12-31" : "2026-03-01";
    case "enum":
      return spec.default ?? spec.values[0];
    case "currency":
      return spec.default;
    case "ref":
      return 1;
    case "boolean":
      return spec.default ?? false;
  }
}

/**
 * A create body: every writable field with a plausible value, references only when required. Unique
 * fields (code, serial_number, external_id) are left out, so the example can be sent again and as
 * an upsert's body agrees with any external_id in the path; a required one is named all the same
 * (the body must validate), and a second create with it is a 409 while the first record lives.
 */
export function createExample(def: ResourceDefinition): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, spec] of writableFields(def)) {
    const required = def.required.includes(name);
    if (spec.type === "ref" && !required) continue;
    if (spec.type === "text" && spec.unique && !required) continue;
    body[name] = exampleValue(def, name, spec);
  }
  return body;
}

/** An update body that changes one field: the title text when there is one, else a money field. */
export function updateExample(def: ResourceDefinition): Record<string, unknown> {
  const fields = writableFields(def);
  const text = fields.find(([name, spec]) => spec.type === "text" && name === def.required[0]);
  if (text) return { [text[0]]: `${String(exampleValue(def, text[0], text[1]))} (renamed)` };
  const money = fields.find(([, spec]) => spec.type === "money");
  if (money) return { [money[0]]: "1375.50" };
  const [name, spec] = fields[0]!;
  return { [name]: exampleValue(def, name, spec) };
}
