// Query-string parsing: every parameter a route does not declare is refused with 400. Each
// parser carries its OpenAPI description, so the document is derived from what is parsed.
import { invalidQuery } from "../refusals/catalogue.ts";

/** How a parameter is documented: an OpenAPI 3.1 parameter without its name and location. */
export interface ParamDoc {
  schema: Record<string, unknown>;
  description?: string;
  style?: "form" | "deepObject";
  explode?: boolean;
  /** A parameter the operation cannot go without (an upload's `filename`). */
  required?: boolean;
}

export type ParamParser<T> = ((value: string, name: string) => T) & {
  doc: ParamDoc;
  /** A deepObject parameter's member (`hired_on[gte]=…`): its value, parsed. */
  member?: (key: string, value: string, name: string) => unknown;
};

export const documented = <T>(
  parse: (value: string, name: string) => T,
  doc: ParamDoc,
): ParamParser<T> => Object.assign(parse, { doc });

/** The same parser, documented for one use (its meaning, default, …). */
export const described = <T>(
  base: ParamParser<T>,
  description: string,
  schema: Record<string, unknown> = {},
): ParamParser<T> =>
  Object.assign(
    documented((value, name) => base(value, name), {
      ...base.doc,
      description,
      schema: { ...base.doc.schema, ...schema },
    }),
    base.member ? { member: base.member } : {},
  );

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
  /** Parameters the route reads itself (a list's custom-field filters, `cf.…`). */
  readElsewhere?: (name: string) => boolean,
): { [K in keyof P]?: ReturnType<P[K]> } {
  const result: Record<string, unknown> = Object.create(null);
  const params = searchParamsOf(url);
  if (!params) return result as { [K in keyof P]?: ReturnType<P[K]> };
  for (const name of new Set(params.keys())) {
    if (readElsewhere?.(name)) continue;
    const member = /^([a-z_]+)\[([a-z_]*)\]$/.exec(name);
    if (member) {
      const [, base = "", key = ""] = member;
      const parser = Object.hasOwn(parsers, base) ? parsers[base] : undefined;
      if (!parser?.member)
        throw invalidQuery(
          `Unknown query parameter "${name}". This route accepts: ${Object.keys(parsers).join(", ")}.`,
        );
      if (params.getAll(name).length > 1)
        throw invalidQuery(`Query parameter "${name}" is given more than once; give it once.`);
      const members = (result[base] ?? {}) as Record<string, unknown>;
      members[key] = parser.member(key, params.get(name)!, name);
      result[base] = members;
      continue;
    }
    // Own members only: `__proto__` or `toString` name no parameter, whatever Object.prototype has.
    const parser = Object.hasOwn(parsers, name) ? parsers[name] : undefined;
    if (!parser) {
      const accepted = Object.keys(parsers);
      throw invalidQuery(
        `Unknown query parameter "${name}". ` +
          `${accepted.length ? `This route accepts: ${accepted.join(", ")}.` : "This route accepts none."}`,
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
          `"${name}" must be an integer ` +
            `${max === undefined ? `of at least ${min}` : `from ${min} to ${max}`}, not ` +
            `"${value}".`,
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

/** A comma-separated choice among fixed values, any case (`status=ACTIVE,on_hold`): any of them. */
export const anyOfParam = (values: readonly string[]): ParamParser<string[]> =>
  documented(
    (value, name) => {
      const picked = value.split(",").map((part) => part.trim().toUpperCase());
      const wrong = picked.filter((part) => !values.includes(part));
      if (wrong.length > 0)
        throw invalidQuery(
          `"${name}" must be one or more of ${values.join(", ")} (any case, comma-separated for ` +
            `any of them), not "${value}".`,
        );
      return [...new Set(picked)];
    },
    {
      schema: { type: "array", items: { type: "string", enum: [...values] }, minItems: 1 },
      style: "form",
      explode: false,
      description: `One or more of ${values.join(", ")} (any case); comma-separated means any of them.`,
    },
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

const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;

/** A calendar date YYYY-MM-DD that exists (no February 30th). */
function validDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const at = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().startsWith(value);
}

/** A moment: an RFC 3339 date-time with a zone, or a date (its midnight UTC). */
export const instantParam: ParamParser<Date> = documented(
  (value, name) => {
    const at = validDate(value)
      ? new Date(`${value}T00:00:00Z`)
      : RFC3339.test(value)
        ? new Date(value)
        : undefined;
    if (!at || Number.isNaN(at.getTime()))
      throw invalidQuery(
        `"${name}" must be a date (2026-11-22, its midnight UTC) or an RFC 3339 date-time with ` +
          `a zone (2026-11-22T08:00:00Z), not "${value}".`,
      );
    return at;
  },
  {
    schema: {
      anyOf: [
        { type: "string", format: "date-time" },
        { type: "string", format: "date" },
      ],
    },
  },
);

export const RANGE_OPERATORS = ["gte", "gt", "lt", "lte"] as const;
export type RangeOperator = (typeof RANGE_OPERATORS)[number];
export type Range = Partial<Record<RangeOperator, unknown>>;

/** The kinds of value a range compares: dates, money and moments. */
const RANGE_VALUES = {
  date: {
    parse: (value: string) => (validDate(value) ? value : undefined),
    schema: { type: "string", format: "date" },
    example: "2024-01-01",
  },
  money: {
    parse: (value: string) => (/^[0-9]{1,12}(\.[0-9]{1,2})?$/.test(value) ? value : undefined),
    schema: { type: "string", pattern: "^[0-9]{1,12}(\\.[0-9]{1,2})?$" },
    example: "10000.00",
  },
  timestamp: {
    parse: (value: string) => {
      try {
        return instantParam(value, "");
      } catch {
        return undefined;
      }
    },
    schema: instantParam.doc.schema,
    example: "2026-11-01",
  },
} as const;

/**
 * `field[gte]=…&field[lt]=…` (and `gt`, `lte`): a range on a date, money or timestamp field,
 * documented as one deepObject parameter; `field=…` alone is refused, naming the operators.
 */
export const rangeParam = (kind: keyof typeof RANGE_VALUES): ParamParser<Range> => {
  const values = RANGE_VALUES[kind];
  const what = {
    date: "a date YYYY-MM-DD",
    money: 'an amount with at most 2 decimals, e.g. "10000.00"',
    timestamp: "a date (its midnight UTC) or an RFC 3339 date-time with a zone",
  }[kind];
  return Object.assign(
    documented<Range>(
      (value, name) => {
        throw invalidQuery(
          `"${name}" is a range: give ` +
            `${RANGE_OPERATORS.map((op) => `${name}[${op}]`).join(", ")}, e.g. ` +
            `${name}[gte]=${values.example}, not ${name}=${value}.`,
        );
      },
      {
        schema: {
          type: "object",
          properties: Object.fromEntries(RANGE_OPERATORS.map((op) => [op, values.schema])),
          additionalProperties: false,
        },
        style: "deepObject",
        explode: true,
      },
    ),
    {
      member: (key: string, value: string, name: string): unknown => {
        const base = name.slice(0, name.indexOf("["));
        if (!(RANGE_OPERATORS as readonly string[]).includes(key))
          throw invalidQuery(
            `Unknown range operator in "${name}": ranges take ` +
              `${RANGE_OPERATORS.map((op) => `${base}[${op}]`).join(", ")}.`,
          );
        const parsed = values.parse(value);
        if (parsed === undefined) throw invalidQuery(`"${name}" must be ${what}, not "${value}".`);
        return parsed;
      },
    },
  );
};

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
          `Unknown field${unknown.length > 1 ? "s" : ""} in "${name}": ${unknown.join(", ")}. ` +
            `Known fields: ${known.join(", ")}.`,
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
export const sortParam = (
  sortable: readonly string[],
  /** Other fields the route checks itself (a custom field's `cf.<key>`). */
  alsoSortable?: RegExp,
): ParamParser<SortKey[]> =>
  documented(
    (value, name) => {
      const keys = value.split(",").map((part) => part.trim());
      const fields = keys.map((key) => (key.startsWith("-") ? key.slice(1) : key));
      const unknown = fields.filter(
        (field) => !sortable.includes(field) && !alsoSortable?.test(field),
      );
      if (keys.length === 0 || unknown.length > 0)
        throw invalidQuery(
          `"${name}" takes comma-separated fields, each with - for descending; ` +
            `${unknown.map((field) => `"${field}"`).join(", ") || "none"} cannot be sorted ` +
            `by. Sortable fields: ${sortable.join(", ")}.`,
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

/** `expand=client,project.client`: references to embed, each a path of at most two names. */
export const expandParam = (paths: readonly string[]): ParamParser<string[][]> =>
  documented(
    (value, name) => {
      const picked = [...new Set(value.split(",").map((part) => part.trim()))];
      const deep = picked.filter((path) => path.split(".").length > 2);
      if (deep.length > 0)
        throw invalidQuery(
          `"${name}" goes two levels deep at most (project.client), not ${deep.join(", ")}.`,
        );
      const unknown = picked.filter((path) => !paths.includes(path));
      if (unknown.length > 0)
        throw invalidQuery(
          `"${name}" cannot expand ${unknown.map((path) => `"${path}"`).join(", ")}. ` +
            `${paths.length ? `Expandable: ${paths.join(", ")}.` : "Nothing here is expandable."}`,
        );
      return picked.map((path) => path.split("."));
    },
    {
      schema: { type: "array", items: { type: "string", enum: [...paths] }, minItems: 1 },
      style: "form",
      explode: false,
    },
  );
