// Query-string parsing: every parameter a route does not declare is refused with 400. Each
// parser carries its OpenAPI description, so the document is derived from what is parsed.
import { invalidQuery } from "../refusals/catalogue.ts";

/** How a parameter is documented: an OpenAPI 3.1 parameter without its name and location. */
export interface ParamDoc {
  schema: Record<string, unknown>;
  description?: string;
  style?: "form";
  explode?: boolean;
}

export type ParamParser<T> = ((value: string, name: string) => T) & { doc: ParamDoc };

const documented = <T>(parse: (value: string, name: string) => T, doc: ParamDoc): ParamParser<T> =>
  Object.assign(parse, { doc });

/** The same parser, documented for one use (its meaning, default, …). */
export const described = <T>(
  base: ParamParser<T>,
  description: string,
  schema: Record<string, unknown> = {},
): ParamParser<T> =>
  documented((value, name) => base(value, name), {
    ...base.doc,
    description,
    schema: { ...base.doc.schema, ...schema },
  });

/**
 * The query of a request's URL, or undefined when it has none: read off the text, since parsing the
 * whole URL costs a hot read a noticeable share of its time and most requests carry no query.
 */
export function searchParamsOf(url: string): URLSearchParams | undefined {
  const start = url.indexOf("?");
  if (start === -1) return undefined;
  const end = url.indexOf("#", start);
  return new URLSearchParams(end === -1 ? url.slice(start + 1) : url.slice(start + 1, end));
}

/** The parameters of a request's URL (`request.url`), each parsed by its parser. */
export function parseQuery<P extends Record<string, ParamParser<unknown>>>(
  url: string,
  parsers: P,
): { [K in keyof P]?: ReturnType<P[K]> } {
  const result: Record<string, unknown> = Object.create(null);
  const params = searchParamsOf(url);
  if (!params) return result as { [K in keyof P]?: ReturnType<P[K]> };
  for (const name of new Set(params.keys())) {
    // Own members only: `__proto__` or `toString` name no parameter, whatever Object.prototype has.
    const parser = Object.hasOwn(parsers, name) ? parsers[name] : undefined;
    if (!parser) {
      const accepted = Object.keys(parsers);
      throw invalidQuery(
        `Unknown query parameter "${name}". ${accepted.length ? `This route accepts: ${accepted.join(", ")}.` : "This route accepts none."}`,
      );
    }
    const values = params.getAll(name);
    // A list may come as a=x,y or as a=x&a=y (what most generated clients send); others once.
    const list = parser.doc.schema.type === "array";
    if (values.length > 1 && !list)
      throw invalidQuery(
        `Query parameter "${name}" is given ${values.length} times; give it once.`,
      );
    result[name] = parser(list ? values.join(",") : values[0]!, name);
  }
  return result as { [K in keyof P]?: ReturnType<P[K]> };
}

export const integerParam = (min: number, max?: number): ParamParser<number> =>
  documented(
    (value, name) => {
      const valid =
        /^[0-9]{1,15}$/.test(value) &&
        Number(value) >= min &&
        (max === undefined || Number(value) <= max);
      if (!valid)
        throw invalidQuery(
          `"${name}" must be an integer ${max === undefined ? `of at least ${min}` : `from ${min} to ${max}`}, not "${value}".`,
        );
      return Number(value);
    },
    { schema: { type: "integer", minimum: min, ...(max === undefined ? {} : { maximum: max }) } },
  );

export const textParam: ParamParser<string> = documented((value) => value, {
  schema: { type: "string" },
});

export const enumParam = (values: readonly string[]): ParamParser<string> =>
  documented(
    (value, name) => {
      const upper = value.toUpperCase();
      if (!values.includes(upper))
        throw invalidQuery(
          `"${name}" must be one of ${values.join(", ")} (any case), not "${value}".`,
        );
      return upper;
    },
    {
      schema: { type: "string", enum: [...values] },
      description: `One of ${values.join(", ")}; any case is accepted.`,
    },
  );

/** One of a fixed set of names, exactly as written (resource names, event types). */
export const oneOfParam = (values: readonly string[]): ParamParser<string> =>
  documented(
    (value, name) => {
      if (!values.includes(value))
        throw invalidQuery(`"${name}" must be one of ${values.join(", ")}, not "${value}".`);
      return value;
    },
    { schema: { type: "string", enum: [...values] } },
  );

const RFC3339 =
  /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})$/i;

/** An RFC 3339 date-time with a zone, e.g. 2026-11-22T08:00:00Z. */
export const timestampParam: ParamParser<Date> = documented(
  (value, name) => {
    const at = RFC3339.test(value) ? new Date(value) : undefined;
    if (!at || Number.isNaN(at.getTime()))
      throw invalidQuery(
        `"${name}" must be an RFC 3339 date-time with a zone, e.g. 2026-11-22T08:00:00Z, not "${value}".`,
      );
    return at;
  },
  { schema: { type: "string", format: "date-time" } },
);

/** A switch: documented as a boolean (`true`/`false`, what generated clients send); `1` and `0` are accepted too. */
export const flagParam: ParamParser<boolean> = documented(
  (value, name) => {
    if (["1", "true"].includes(value)) return true;
    if (["0", "false"].includes(value)) return false;
    throw invalidQuery(`"${name}" must be true or false (or 1 or 0), not "${value}".`);
  },
  { schema: { type: "boolean" } },
);

export const fieldListParam = (known: readonly string[]): ParamParser<string[]> =>
  documented(
    (value, name) => {
      const picked = value
        .split(",")
        .map((field) => field.trim())
        .filter(Boolean);
      if (picked.length === 0) throw invalidQuery(`"${name}" must list at least one field.`);
      const unknown = picked.filter((field) => !known.includes(field));
      if (unknown.length > 0)
        throw invalidQuery(
          `Unknown field${unknown.length > 1 ? "s" : ""} in "${name}": ${unknown.join(", ")}. Known fields: ${known.join(", ")}.`,
        );
      return [...new Set(["id", ...picked])];
    },
    {
      schema: { type: "array", items: { type: "string", enum: [...known] }, minItems: 1 },
      style: "form",
      explode: true,
    },
  );

/** One key of a list's order: a field, ascending unless `descending`. */
export interface SortKey {
  field: string;
  descending: boolean;
}

/** `sort=name,-hired_on`: fields to order by, `-` for descending; each field once. */
export const sortParam = (sortable: readonly string[]): ParamParser<SortKey[]> =>
  documented(
    (value, name) => {
      const keys = value.split(",").map((part) => part.trim());
      const fields = keys.map((key) => (key.startsWith("-") ? key.slice(1) : key));
      const unknown = fields.filter((field) => !sortable.includes(field));
      if (keys.length === 0 || unknown.length > 0)
        throw invalidQuery(
          `"${name}" takes comma-separated fields, each with - for descending; ${unknown.map((field) => `"${field}"`).join(", ") || "none"} cannot be sorted by. Sortable fields: ${sortable.join(", ")}.`,
        );
      if (new Set(fields).size < fields.length)
        throw invalidQuery(`"${name}" names a field twice: ${value}.`);
      return keys.map((key, index) => ({ field: fields[index]!, descending: key.startsWith("-") }));
    },
    {
      schema: {
        type: "array",
        items: { type: "string", enum: sortable.flatMap((field) => [field, `-${field}`]) },
        minItems: 1,
      },
      style: "form",
      explode: false,
    },
  );
