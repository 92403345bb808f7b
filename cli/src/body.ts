// Turns what a person types (key=value, --data, --file) or a CSV cell into the JSON body the API expects.
import { readFileSync } from "node:fs";
import { UsageError } from "./usage-error.ts";

type Body = Record<string, unknown>;

/**
 * A text value as the API wants it: references (`client_id`, any `*_id`) are integers, `true`/`false`
 * are booleans, everything else stays a string (money such as `"1250.50"` and dates are sent as text,
 * and so is an `external_id`: your own key, text even when it is digits).
 */
export function coerce(field: string, value: string): unknown {
  if (value === "true") return true;
  if (value === "false") return false;
  if (field.endsWith("_id") && field !== "external_id" && /^-?\d+$/.test(value))
    return Number(value);
  return value;
}

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)(:?)=(.*)$/s;

/**
 * `name=Depot client_id=3 code=` → `{name: "Depot", client_id: 3, code: null}`; `key:=JSON` sends
 * the JSON as is. A custom field's value is given as `custom_fields.<key>=value` and stays a flat
 * member here (its type is the company's: see custom-fields.ts).
 */
export function parseAssignments(assignments: readonly string[]): Body {
  const body: Body = {};
  for (const assignment of assignments) {
    const match = ASSIGNMENT.exec(assignment);
    if (!match)
      throw new UsageError(`expected key=value (or key:=JSON), got ${JSON.stringify(assignment)}`);
    const [, key = "", raw, value = ""] = match;
    if (Object.hasOwn(body, key)) throw new UsageError(`${key} is given twice`);
    // A custom field's text is read by its type once the company's fields are known.
    const typed = key.includes(".") ? value : coerce(key, value);
    body[key] = raw ? parseJson(value, key) : value === "" ? null : typed;
  }
  return body;
}

export interface BodySources {
  data?: string | undefined;
  file?: string | undefined;
}

/** The write body from exactly one of --data, --file (`-` is stdin) or key=value arguments. */
export function readBody(sources: BodySources, assignments: readonly string[]): Body {
  const given = [
    sources.data !== undefined,
    sources.file !== undefined,
    assignments.length > 0,
  ].filter(Boolean).length;
  if (given === 0)
    throw new UsageError("give the fields as --data JSON, --file F or key=value arguments");
  if (given > 1) throw new UsageError("use only one of --data, --file and key=value arguments");
  if (assignments.length > 0) return parseAssignments(assignments);
  if (sources.data !== undefined) return asObject(parseJson(sources.data, "--data"), "--data");
  const file = sources.file as string;
  let text: string;
  try {
    text = readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  return asObject(parseJson(text, file), file);
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${where} is not valid JSON: ${(error as Error).message}`);
  }
}

function asObject(value: unknown, where: string): Body {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new UsageError(`${where} must be a JSON object`);
  return value as Body;
}
