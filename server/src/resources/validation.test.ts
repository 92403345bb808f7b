// Body validation against the real definitions: every failing field at once, in words a person
// can act on, lengths in characters.
import { describe, expect, test } from "bun:test";
import { definitionNamed } from "./registry.ts";
import { characterCount, checkDateOrder, normalizeMoney, validateBody } from "./validation.ts";

const clients = definitionNamed("clients");
const projects = definitionNamed("projects");
const rentals = definitionNamed("rentals");

const codes = (body: unknown, partial = false) =>
  validateBody(projects, body, partial).errors.map((error) => [error.field, error.code]);

describe("validateBody", () => {
  test("reports every failing field in one pass, unknown and read-only fields included", () => {
    const { errors } = validateBody(
      clients,
      {
        id: 3,
        created_at: "x",
        colour: "red",
        email: "nope",
        phone: "1".repeat(41),
        status: "active",
      },
      false,
    );
    expect(errors.map((error) => [error.field, error.code])).toEqual([
      ["id", "read_only"],
      ["created_at", "read_only"],
      ["colour", "unknown_field"],
      ["name", "required"],
      ["email", "invalid_email"],
      ["phone", "too_long"],
      ["status", "invalid_enum"],
    ]);
    for (const error of errors) expect(error.message).not.toMatch(/Expected|union|schema|\//);
  });

  test("lengths count characters (code points), not UTF-16 units", () => {
    expect(validateBody(clients, { name: "😀".repeat(200) }, false).errors).toEqual([]);
    expect(codes({ name: "😀".repeat(201) })).toEqual([["name", "too_long"]]);
    expect(characterCount("a😀b")).toBe(3);
  });

  test("a lone surrogate is refused, not silently replaced", () => {
    expect(codes({ name: "a\ud800b" })).toEqual([["name", "invalid_text"]]);
  });

  test("money: a string or a number, at least 0, at most 2 decimals; normalised to 2 decimals", () => {
    expect(
      validateBody(projects, { name: "P", budget_amount: 12.5 }, false).values.budget_amount,
    ).toBe("12.50");
    expect(
      validateBody(projects, { name: "P", budget_amount: "007.1" }, false).values.budget_amount,
    ).toBe("7.10");
    for (const bad of [1.234, -1, "1,50", "12.345", Number.NaN, true, "1e3"])
      expect(codes({ name: "P", budget_amount: bad })).toEqual([
        ["budget_amount", "invalid_money"],
      ]);
    expect(normalizeMoney(999_999_999_999.99)).toBe("999999999999.99");
  });

  test("dates are real calendar dates; currencies are ISO 4217 codes; references are positive integers", () => {
    expect(codes({ name: "P", start_date: "2026-02-30", currency: "ZZZ", client_id: 0 })).toEqual([
      ["client_id", "invalid_type"],
      ["currency", "invalid_currency"],
      ["start_date", "invalid_date"],
    ]);
    expect(codes({ name: "P", currency: "EUR", client_id: 7, start_date: "2028-02-29" })).toEqual(
      [],
    );
  });

  test("null clears an optional field, is refused for a required or defaulted one", () => {
    expect(codes({ name: "P", code: null })).toEqual([]);
    expect(codes({ name: null, currency: null })).toEqual([
      ["name", "required"],
      ["currency", "invalid_type"],
    ]);
  });

  test("a partial body (PATCH) needs nothing; an empty title is too short", () => {
    expect(codes({}, true)).toEqual([]);
    expect(codes({ name: "  " }, true)).toEqual([["name", "too_short"]]);
  });

  test("a body that is not an object is one error on `body`", () => {
    for (const body of [null, [], "text", 3])
      expect(codes(body)).toEqual([["body", "invalid_type"]]);
  });

  test("a sub-resource's parent column is read-only", () => {
    expect(
      validateBody(
        rentals,
        { project_id: 1, start_date: "2026-01-01", equipment_id: 2 },
        false,
      ).errors.map((error) => error.code),
    ).toEqual(["read_only"]);
  });
});

test("checkDateOrder refuses an end before its start", () => {
  expect(
    checkDateOrder(projects, { start_date: "2026-03-01", end_date: "2026-02-01" }).map(
      (error) => error.code,
    ),
  ).toEqual(["date_order"]);
  expect(checkDateOrder(projects, { start_date: "2026-03-01", end_date: null })).toEqual([]);
});
