// Query parsing: only declared parameters, each once, each with a value it can take.
import { describe, expect, test } from "bun:test";
import { Refusal } from "../refusals/refusal.ts";
import {
  fieldListParam,
  flagParam,
  integerParam,
  parseQuery,
  textParam,
  timestampParam,
} from "./query.ts";

const parsers = {
  limit: integerParam(1),
  q: textParam,
  fields: fieldListParam(["id", "name"]),
  since: timestampParam,
  all: flagParam,
};
const parse = (query: string) => parseQuery(`http://x/?${query}`, parsers);
const refusal = (query: string): string | undefined => {
  try {
    parse(query);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(Refusal);
    return `${(error as Refusal).status} ${(error as Refusal).code}`;
  }
};

describe("parseQuery", () => {
  test("names of Object.prototype members are unknown parameters, not crashes or passes", () => {
    for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"])
      expect(refusal(`${name}=1`)).toBe("400 invalid_query");
  });

  test("a parameter given twice, a bad integer or an unknown field is refused", () => {
    expect(refusal("q=a&q=b")).toBe("400 invalid_query");
    for (const bad of ["limit=0", "limit=1.5", "limit=-1", "limit=9999999999999999"])
      expect(refusal(bad)).toBe("400 invalid_query");
    expect(refusal("fields=name,colour")).toBe("400 invalid_query");
    expect(refusal("since=yesterday")).toBe("400 invalid_query");
  });

  test("a bounded integer is refused outside its range, which the refusal names", () => {
    const bounded = { wait: integerParam(1, 30) };
    expect(parseQuery("http://x/?wait=30", bounded)).toEqual({ wait: 30 });
    for (const bad of ["0", "31", "2.5"]) {
      expect(() => parseQuery(`http://x/?wait=${bad}`, bounded)).toThrow(
        `"wait" must be an integer from 1 to 30, not "${bad}".`,
      );
    }
  });

  test("a list comes repeated (fields=a&fields=b, as generated clients send it) or comma-separated", () => {
    expect(parse("fields=name&fields=id")).toEqual({ fields: ["id", "name"] });
    expect(parse("fields=name,id")).toEqual(parse("fields=name&fields=id"));
    expect(refusal("fields=name&fields=colour")).toBe("400 invalid_query");
  });

  test("values are parsed: fields always include id, timestamps become dates", () => {
    expect(parse("limit=20&fields=name&all=true&since=2026-11-22T08:00:00%2B01:00")).toEqual({
      limit: 20,
      fields: ["id", "name"],
      all: true,
      since: new Date("2026-11-22T07:00:00Z"),
    });
  });
});
