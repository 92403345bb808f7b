// The type generator on a small document: names, enum aliases, nullability, inputs, filters and singletons.
import { expect, test } from "bun:test";
import { emitTypes, HEADER, type OpenApiDocument } from "../../scripts/emit-types.ts";

const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const status = { type: "string", enum: ["OPEN", "SHUT"], description: "One of OPEN, SHUT." };
const document: OpenApiDocument = {
  paths: {
    "/healthz": { get: { responses: { 200: json({ type: "object" }) } } },
    "/v1/gate-houses": {
      get: {
        parameters: [
          { name: "limit", in: "query", schema: { type: "integer" } },
          { name: "q", in: "query", description: "Search.", schema: { type: "string" } },
          { $ref: "#/components/parameters/Status" },
        ],
        responses: {
          200: json({ type: "object", properties: { data: { type: "array", items: { anyOf: [
            { $ref: "#/components/schemas/GateHouseSparse" },
            { $ref: "#/components/schemas/GateHouse" },
          ] } } } }),
        },
      },
      post: { requestBody: json({ type: "object", required: ["name"], properties: { name: { type: "string" }, fee: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] } } }) },
    },
    "/v1/gate-houses/{id}": {
      patch: { requestBody: json({ type: "object", properties: { status } }) },
    },
    "/v1/usage": {
      get: { responses: { 200: json({ type: "object", properties: { data: { $ref: "#/components/schemas/Usage" } } }) } },
    },
  },
  components: {
    parameters: { Status: { name: "status", in: "query", schema: status } },
    schemas: {
      Usage: { type: "object", required: ["a", "b"], properties: { a: { $ref: "#/components/schemas/Quota" }, b: { $ref: "#/components/schemas/Quota" } } },
      Quota: { type: "object", required: ["n"], properties: { n: { type: "integer" } } },
      GateHouseSparse: { type: "object", required: ["id"], properties: { id: { type: "integer" } } },
      GateHouse: {
        type: "object",
        required: ["id", "name", "fee", "status", "tags"],
        properties: {
          id: { type: "integer" },
          name: { type: "string", description: "Its */ name." },
          fee: { anyOf: [{ type: "string", description: "Money." }, { type: "null" }] },
          status,
          tags: { type: "array", items: { type: ["string", "null"] } },
        },
      },
    },
  },
};

test("each collection gives a record (not its sparse variant), create, filters and update type; enums and nested components are named", () => {
  expect(emitTypes(document)).toBe(`${HEADER}
export type GateHouseStatus = "OPEN" | "SHUT";

export interface GateHouse {
  id: number;
  /** Its *\\/ name. */
  name: string;
  /** Money. */
  fee: string | null;
  /** One of OPEN, SHUT. */
  status: GateHouseStatus;
  tags: (string | null)[];
}

export interface GateHouseCreate {
  name: string;
  fee?: string | number | null;
}

export interface GateHouseFilters {
  /** Search. */
  q?: string;
  /** One of OPEN, SHUT. */
  status?: GateHouseStatus;
}

export interface GateHouseUpdate {
  /** One of OPEN, SHUT. */
  status?: GateHouseStatus;
}

export interface Quota {
  n: number;
}

export interface Usage {
  a: Quota;
  b: Quota;
}
`);
});

test("a narrower value set (a create's initial statuses) gets an alias named after its declaration", () => {
  const narrower = structuredClone(document);
  (narrower.paths["/v1/gate-houses/{id}"]!.patch as { requestBody: unknown }).requestBody = json({
    type: "object",
    properties: { status: { type: "string", enum: ["OPEN"] } },
  });
  const types = emitTypes(narrower);
  expect(types).toContain('export type GateHouseStatus = "OPEN" | "SHUT";');
  expect(types).toContain('export type GateHouseUpdateStatus = "OPEN";');
  expect(types).toContain("status?: GateHouseUpdateStatus;");
});
