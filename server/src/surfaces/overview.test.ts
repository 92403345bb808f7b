// The document's introduction names the resources in prose; it must name every one the registry
// serves, every resource behind an add-on of its own where it says which need one, and every
// resource a quota limits where it speaks of quotas.
import { expect, test } from "bun:test";
import { ALL_DEFINITIONS, RESOURCES, SUB_RESOURCES } from "../resources/registry.ts";
import { OVERVIEW } from "./overview.ts";

const paragraphs = OVERVIEW.split("\n\n").map((paragraph) => paragraph.replace(/\s+/g, " "));
const named = (paragraph: string, names: string[]): string[] =>
  names.filter((name) => !paragraph.includes(name.replace(/-/g, " ")));

test("the first paragraph names every collection of records", () => {
  expect(
    named(
      paragraphs[0]!,
      [...RESOURCES, ...SUB_RESOURCES].map((def) => def.name),
    ),
  ).toEqual([]);
});

test("the add-on paragraph names every resource that needs an add-on besides the API's", () => {
  const addons = paragraphs.find((paragraph) =>
    paragraph.startsWith("## Authentication and add-ons"),
  )!;
  expect(
    named(
      addons,
      ALL_DEFINITIONS.filter((def) => def.addon !== "api").map((def) => def.name),
    ),
  ).toEqual([]);
});

test("the limits paragraph names every resource a plan's quota limits", () => {
  const limits = paragraphs.find((paragraph) => paragraph.startsWith("## Limits and metering"))!;
  const limited = ALL_DEFINITIONS.filter((def) => def.quota !== undefined).map((def) => def.name);
  expect(limited.length).toBeGreaterThan(0);
  expect(named(limits, limited)).toEqual([]);
});
