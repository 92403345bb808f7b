// The rules of scopes (docs/tokens.md): what each scope a token holds grants.
import { expect, test } from "bun:test";
import { expandScope, grants, satisfies } from "./scopes.ts";

const held = (...scopes: string[]) => new Set(scopes);

test("a write scope grants its read scope, never another resource's", () => {
  expect(grants(held("workers:write"), "workers:read")).toBe(true);
  expect(grants(held("workers:write"), "workers:write")).toBe(true);
  expect(grants(held("workers:read"), "workers:write")).toBe(false);
  expect(grants(held("workers:write"), "projects:read")).toBe(false);
  expect(grants(held("webhooks:write"), "webhooks:read")).toBe(true);
});

test("read and write stand for every resource's scope, not the feed's, webhooks', usage's or tokens'", () => {
  expect(grants(held("read"), "equipment:read")).toBe(true);
  expect(grants(held("read"), "equipment:write")).toBe(false);
  expect(grants(held("write"), "equipment:read")).toBe(true);
  expect(grants(held("write"), "equipment:write")).toBe(true);
  for (const other of [
    "events:read",
    "webhooks:read",
    "webhooks:write",
    "usage:read",
    "tokens:write",
  ]) {
    expect(grants(held("read", "write"), other)).toBe(false);
    expect(grants(held("*"), other)).toBe(true);
  }
});

test("an operation with several scopes takes any one; with none, any token", () => {
  expect(satisfies(held("usage:read"), ["workers:read", "usage:read"])).toBe(true);
  expect(satisfies(held("tokens:write"), ["workers:read", "usage:read"])).toBe(false);
  expect(satisfies(held(), [])).toBe(true);
});

test("a shorthand expands to every known scope it grants", () => {
  const known = ["events:read", "tokens:write", "workers:read", "workers:write"];
  expect(expandScope("read", known)).toEqual(["workers:read"]);
  expect(expandScope("write", known)).toEqual(["workers:read", "workers:write"]);
  expect(expandScope("*", known)).toEqual(known);
  expect(expandScope("events:read", known)).toEqual(["events:read"]);
});

test("sensitive scopes: granted by `sensitive` and `*` alone, never by read, write or a resource's write", () => {
  expect(grants(held("sensitive"), "workers:sensitive")).toBe(true);
  expect(grants(held("workers:sensitive"), "workers:sensitive")).toBe(true);
  expect(grants(held("*"), "clients:sensitive")).toBe(true);
  expect(grants(held("workers:sensitive"), "clients:sensitive")).toBe(false);
  expect(grants(held("read", "write", "workers:write"), "workers:sensitive")).toBe(false);
  expect(grants(held("sensitive"), "workers:read")).toBe(false);
  const known = ["workers:read", "workers:sensitive", "clients:sensitive"];
  expect(expandScope("sensitive", known)).toEqual(["workers:sensitive", "clients:sensitive"]);
});
