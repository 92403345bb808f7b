// Query-string parsing: every parameter a route does not declare is refused with 400.
import { invalidQuery } from "./problem.ts";

export type ParamParser<T> = (value: string, name: string) => T;

export function parseQuery<P extends Record<string, ParamParser<unknown>>>(
  url: URL,
  parsers: P,
): { [K in keyof P]?: ReturnType<P[K]> } {
  const result: Record<string, unknown> = {};
  for (const name of new Set(url.searchParams.keys())) {
    const parser = parsers[name];
    if (!parser) {
      const accepted = Object.keys(parsers);
      throw invalidQuery(`Unknown query parameter "${name}". ${accepted.length ? `This route accepts: ${accepted.join(", ")}.` : "This route accepts none."}`);
    }
    const values = url.searchParams.getAll(name);
    if (values.length > 1) throw invalidQuery(`Query parameter "${name}" is given ${values.length} times; give it once.`);
    result[name] = parser(values[0]!, name);
  }
  return result as { [K in keyof P]?: ReturnType<P[K]> };
}

export const integerParam = (min: number): ParamParser<number> => (value, name) => {
  if (!/^[0-9]{1,15}$/.test(value) || Number(value) < min) throw invalidQuery(`"${name}" must be an integer of at least ${min}, not "${value}".`);
  return Number(value);
};

export const textParam: ParamParser<string> = (value) => value;

export const enumParam = (values: readonly string[]): ParamParser<string> => (value, name) => {
  const upper = value.toUpperCase();
  if (!values.includes(upper)) throw invalidQuery(`"${name}" must be one of ${values.join(", ")} (any case), not "${value}".`);
  return upper;
};

export const flagParam: ParamParser<boolean> = (value, name) => {
  if (["1", "true"].includes(value)) return true;
  if (["0", "false"].includes(value)) return false;
  throw invalidQuery(`"${name}" must be 1 or 0, not "${value}".`);
};

export const fieldListParam = (known: readonly string[]): ParamParser<string[]> => (value, name) => {
  const picked = value.split(",").map((field) => field.trim()).filter(Boolean);
  if (picked.length === 0) throw invalidQuery(`"${name}" must list at least one field.`);
  const unknown = picked.filter((field) => !known.includes(field));
  if (unknown.length > 0) throw invalidQuery(`Unknown field${unknown.length > 1 ? "s" : ""} in "${name}": ${unknown.join(", ")}. Known fields: ${known.join(", ")}.`);
  return [...new Set(["id", ...picked])];
};
