// Definitions are checked against their tables when they are defined.
import { expect, test } from "bun:test";
import * as schema from "../db/schema.ts";
import { defineResource, LOOKUP } from "./define.ts";
import { ALL_DEFINITIONS, definitionNamed } from "./registry.ts";

const base = {
  name: "clients",
  singular: "Client",
  description: "",
  addon: "api" as const,
  operations: ["list" as const],
  search: [],
  filters: [],
  status: { values: ["ACTIVE"], initial: ["ACTIVE"] },
};

test("lengths and nullability come from the columns", () => {
  const clients = ALL_DEFINITIONS.find((def) => def.name === "clients")!;
  expect(clients.fields.name).toMatchObject({ type: "text", max: 200, nullable: false });
  expect(clients.fields.tax_id).toMatchObject({ type: "text", max: 32, nullable: true });
  expect(clients.fields.email).toMatchObject({ type: "email", max: 254 });
});

test("a column the definition forgets, a nullable required field or an undefaulted NOT NULL field is refused", () => {
  expect(() =>
    defineResource(schema.clients, {
      ...base,
      required: ["name"],
      fields: { name: { type: "text" } },
    }),
  ).toThrow(/column email is neither a field nor read-only/);
  const all = {
    email: { type: "email" as const },
    phone: { type: "text" as const },
    tax_id: { type: "text" as const },
    billing_address: { type: "text" as const },
  };
  expect(() =>
    defineResource(schema.clients, {
      ...base,
      required: ["name", "tax_id"],
      fields: { name: { type: "text" }, ...all },
    }),
  ).toThrow(/required tax_id is a nullable column/);
  expect(() =>
    defineResource(schema.clients, {
      ...base,
      required: [],
      fields: { name: { type: "text" }, ...all },
    }),
  ).toThrow(/name is NOT NULL but neither required nor defaulted/);
});

test("a quota is the resource's own line of the plans' quotas", () => {
  const fields = {
    name: { type: "text" as const },
    email: { type: "email" as const },
    phone: { type: "text" as const },
    tax_id: { type: "text" as const },
    billing_address: { type: "text" as const },
  };
  expect(() =>
    defineResource(schema.clients, { ...base, required: ["name"], fields, quota: "workers" }),
  ).toThrow(/clients: its quota must be its own line of the plans' quotas, not workers/);
});

test("every registered definition has a name and a table of its own", () => {
  expect(new Set(ALL_DEFINITIONS.map((def) => def.name)).size).toBe(ALL_DEFINITIONS.length);
  expect(new Set(ALL_DEFINITIONS.map((def) => def.table)).size).toBe(ALL_DEFINITIONS.length);
});

test("the registry links every reference, dependent and parent to a registered definition", () => {
  const projects = definitionNamed("projects");
  expect(projects.fields.budget_estimate_id).toMatchObject({
    type: "ref",
    target: definitionNamed("estimates"),
  });
  expect(definitionNamed("estimates").dependents[0]?.resource).toBe(projects);
  expect(definitionNamed("rentals").parent?.resource).toBe(definitionNamed("equipment"));
  for (const def of ALL_DEFINITIONS) {
    const targets = [...Object.values(def.fields), ...Object.values(def.readOnly)].flatMap(
      (spec) => (spec.type === "ref" ? [spec.target] : []),
    );
    for (const linked of [
      ...targets,
      ...def.dependents.map((dependent) => dependent.resource),
      ...(def.parent ? [def.parent.resource] : []),
    ]) {
      expect(ALL_DEFINITIONS).toContain(linked);
    }
  }
});

test("a lookup is written one at a time, and its caseless name needs the key column of its table", () => {
  const trades = definitionNamed("trades");
  expect(trades.operations).toEqual([
    "list",
    "get",
    "create",
    "update",
    "delete",
    "aggregate",
    "restore",
  ]);
  expect(trades.fields.name).toMatchObject({
    type: "text",
    unique: true,
    caseless: true,
    max: 100,
  });
  const lookup = {
    ...LOOKUP,
    name: "trades",
    singular: "Trade",
    description: "",
    addon: "api" as const,
  };
  expect(() =>
    defineResource(schema.clients, {
      ...lookup,
      fields: {
        name: { type: "text", unique: true, caseless: true },
        email: { type: "email" },
        phone: { type: "text" },
        tax_id: { type: "text" },
        billing_address: { type: "text" },
      },
      lookup: { seed: [] },
    }),
  ).toThrow(/trades: its table has no column name_key/);
});
