// The type generator on a small document: names, enum aliases, nullability, inputs, filters and singletons.
import { expect, test } from "bun:test";
import { emitCollections } from "../../scripts/emit-collections.ts";
import { emitTypes, HEADER, type OpenApiDocument } from "../../scripts/emit-types.ts";

const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const problem = (codes: string[]) => ({
  content: {
    "application/problem+json": {
      schema: {
        allOf: [
          { $ref: "#/components/schemas/Problem" },
          { type: "object", properties: { code: { type: "string", enum: codes } } },
        ],
      },
    },
  },
});
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
          { name: "include_deleted", in: "query", schema: { type: "boolean" } },
        ],
        responses: {
          200: json({
            type: "object",
            properties: {
              data: {
                type: "array",
                items: {
                  anyOf: [
                    { $ref: "#/components/schemas/GateHouseSparse" },
                    { $ref: "#/components/schemas/GateHouse" },
                  ],
                },
              },
            },
          }),
        },
      },
      post: {
        requestBody: json({
          type: "object",
          required: ["name"],
          properties: {
            name: { type: "string" },
            fee: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] },
          },
        }),
        responses: {
          201: json({
            type: "object",
            properties: { data: { $ref: "#/components/schemas/Created" } },
          }),
          409: problem(["gate_shut", "unique_violation"]),
          422: problem(["validation_failed"]),
        },
      },
    },
    "/v1/gate-houses/{id}": {
      patch: { requestBody: json({ type: "object", properties: { status } }) },
    },
    "/v1/usage": {
      get: {
        responses: {
          200: json({
            type: "object",
            properties: { data: { $ref: "#/components/schemas/Usage" } },
          }),
        },
      },
    },
  },
  components: {
    parameters: { Status: { name: "status", in: "query", schema: status } },
    schemas: {
      Usage: {
        type: "object",
        required: ["a", "b"],
        properties: {
          a: { $ref: "#/components/schemas/Quota" },
          b: { $ref: "#/components/schemas/Quota" },
        },
      },
      Quota: { type: "object", required: ["n"], properties: { n: { type: "integer" } } },
      Created: {
        type: "object",
        required: ["id", "created"],
        properties: { id: { type: "integer" }, created: { const: true, type: "boolean" } },
      },
      Problem: { type: "object", properties: { code: { type: "string" } } },
      GateHouseSparse: {
        type: "object",
        required: ["id"],
        properties: { id: { type: "integer" } },
      },
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

test(
  "each collection gives a record (not its sparse variant), create, filters (a boolean " +
    "switch as a boolean) and update type; enums and nested components are named",
  () => {
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
  include_deleted?: boolean;
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

export interface Created {
  id: number;
  created: true;
}

/** Every problem \`code\` the API's operations declare. */
export type ApiErrorCode = "gate_shut" | "unique_violation" | "validation_failed";

/** The codes of 409 Conflict answers. */
export type ConflictCode = "gate_shut" | "unique_violation";
`);
  },
);

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

test(
  "collections: path, command, kind, id filters, required and writable fields with hints and " +
    "kinds, import columns, and the typed client of each",
  () => {
    const withLookup = structuredClone(document);
    withLookup.paths["/v1/gate-houses"]!.get!.parameters = [
      ...(withLookup.paths["/v1/gate-houses"]!.get!.parameters as unknown[]),
      { name: "offset", in: "query", schema: { type: "integer" } },
      { name: "keeper_id", in: "query", schema: { type: "integer" } },
      { name: "external_id", in: "query", schema: { type: "string" } },
    ];
    withLookup.paths["/v1/gate-houses/batch"] = {
      post: {
        "x-import": {
          aliases: { gate_name: "name" },
          unique: ["name"],
          references: { keeper_id: { column: "keeper", path: "/v1/keepers", match: ["name"] } },
        },
        responses: { 200: json({ type: "object" }) },
      },
    };
    withLookup.paths["/v1/gate-keys"] = {
      get: {
        parameters: [{ name: "offset", in: "query", schema: { type: "integer" } }],
        responses: {
          200: json({
            type: "object",
            properties: { data: { type: "array", items: { type: "object" } } },
          }),
        },
      },
    };
    const text = emitCollections(withLookup);
    expect(text).toContain(`  gateHouses: {
    path: "/v1/gate-houses", command: "gate-houses", kind: "records", idFilters: ["keeper_id"], ranges: [], required: ["name"], children: {},
    fields: {
      create: { name: "text, required", fee: "amount, e.g. 1250.00" },
      update: { status: "OPEN|SHUT" },
    },
    kinds: { name: "text", fee: "money", status: "enum" },
    import: {"aliases":{"gate_name":"name"},"unique":["name"],"references":{"keeper_id":{"column":"keeper","path":"/v1/keepers","match":["name"]}}},
  },`);
    expect(text).toContain(`  gateKeys: {
    path: "/v1/gate-keys", command: "gate-keys", kind: "lookup", idFilters: [], ranges: [], required: [], children: {},
    fields: {
      create: {},
      update: {},
    },
    kinds: {},
    import: {"aliases":{},"unique":[],"references":{}},
  },`);
    expect(text).toContain(
      "readonly gateHouses: Pick<ResourceClient<GateHouse, GateHouseCreate, GateHouseUpdate, " +
        'GateHouseFilters>, "list" | "listPage" | "create" | "update" | "batch">;',
    );
    expect(text).toContain(
      'readonly gateKeys: Pick<ResourceClient<GateKey, never, never, Record<never, never>>, "list" | "listPage">;',
    );
  },
);

test("a top-level collection written without batches is a lookup, its restore typed", () => {
  const lookup = structuredClone(document);
  lookup.paths["/v1/gate-houses"]!.get!.parameters = [
    ...(lookup.paths["/v1/gate-houses"]!.get!.parameters as unknown[]),
    { name: "offset", in: "query", schema: { type: "integer" } },
  ];
  lookup.paths["/v1/gate-houses/{id}/restore"] = {
    post: { responses: { 200: json({ type: "object" }) } },
  };
  const text = emitCollections(lookup);
  expect(text).toContain('path: "/v1/gate-houses", command: "gate-houses", kind: "lookup"');
  expect(text).toContain(
    "readonly gateHouses: Pick<ResourceClient<GateHouse, GateHouseCreate, GateHouseUpdate, " +
      'GateHouseFilters>, "list" | "listPage" | "create" | "update" | "restore">;',
  );
});

test(
  "an embed (a record, DeletedRecord or null) is left out of its record, and the embeds table " +
    "names the record at the end of each expand path, two levels too",
  () => {
    const embedding = structuredClone(document);
    const schemas = embedding.components!.schemas as Record<string, Record<string, unknown>>;
    const embed = (ref: string) => ({
      anyOf: [
        { $ref: `#/components/schemas/${ref}` },
        { $ref: "#/components/schemas/DeletedRecord" },
        { type: "null" },
      ],
    });
    schemas.DeletedRecord = {
      type: "object",
      required: ["id", "deleted"],
      properties: { id: { type: "integer" }, deleted: { const: true, type: "boolean" } },
    };
    schemas.Keeper = {
      type: "object",
      required: ["id"],
      properties: { id: { type: "integer" }, town: embed("Town") },
    };
    schemas.Town = { type: "object", required: ["id"], properties: { id: { type: "integer" } } };
    (schemas.GateHouse!.properties as Record<string, unknown>).keeper = embed("Keeper");
    embedding.paths["/v1/gate-houses"]!.get!.parameters = [
      ...(embedding.paths["/v1/gate-houses"]!.get!.parameters as unknown[]),
      { name: "offset", in: "query", schema: { type: "integer" } },
      {
        name: "expand",
        in: "query",
        schema: { type: "array", items: { type: "string", enum: ["keeper", "keeper.town"] } },
      },
    ];
    const types = emitTypes(embedding);
    expect(types).toContain("export interface DeletedRecord {\n  id: number;\n  deleted: true;\n}");
    expect(types).not.toContain("keeper?:");
    expect(types).not.toContain("expand?:");
    expect(types).toContain(`export interface GateHouseEmbeds {
  keeper: Keeper;
  "keeper.town": Town;
}`);
    expect(emitCollections(embedding)).toContain(
      "ResourceClient<GateHouse, GateHouseCreate, GateHouseUpdate, GateHouseFilters, GateHouseEmbeds>",
    );
  },
);

test("each field's kind is read from its schema, never from its hint text", () => {
  const typed = structuredClone(document);
  typed.paths["/v1/gate-houses"]!.get!.parameters = [
    ...(typed.paths["/v1/gate-houses"]!.get!.parameters as unknown[]),
    { name: "offset", in: "query", schema: { type: "integer" } },
  ];
  typed.paths["/v1/gate-houses"]!.post!.requestBody = json({
    type: "object",
    properties: {
      name: { type: "string", maxLength: 20 },
      contact: { type: ["string", "null"], format: "email" },
      opened_on: { anyOf: [{ type: "string", format: "date" }, { type: "null" }] },
      keeper_id: { type: ["integer", "null"], minimum: 1 },
      floors: { type: "integer" },
      height: { type: "number" },
      fee: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] },
      open: { type: "boolean" },
      tags: { type: "array", items: { type: "string" } },
      gate: { type: ["string", "null"], enum: ["NORTH", "SOUTH", null] },
    },
  });
  expect(emitCollections(typed)).toContain(
    '    kinds: { name: "text", contact: "email", opened_on: "date", keeper_id: "reference", ' +
      'floors: "integer", height: "number", fee: "money", open: "boolean", tags: "array", ' +
      'gate: "enum", status: "enum" },\n',
  );
});

test("a collection's report types its group keys and metrics from the enums of group_by and metrics", () => {
  const reporting = structuredClone(document);
  reporting.paths["/v1/gate-houses"]!.get!.parameters = [
    ...(reporting.paths["/v1/gate-houses"]!.get!.parameters as unknown[]),
    { name: "offset", in: "query", schema: { type: "integer" } },
  ];
  const names = (values: string[]) => ({
    type: "array",
    items: { type: "string", enum: values },
  });
  reporting.paths["/v1/gate-houses/aggregate"] = {
    get: {
      parameters: [
        { name: "group_by", in: "query", schema: names(["status", "month(opened_on)"]) },
        { name: "metrics", in: "query", schema: names(["count", "sum(fee)"]) },
      ],
      responses: { 200: json({ type: "object", properties: { data: { type: "array" } } }) },
    },
  };
  const types = emitTypes(reporting);
  expect(types).toContain('export type GateHouseGroupKey = "status" | "month(opened_on)";');
  expect(types).toContain('export type GateHouseMetric = "count" | "sum(fee)";');
  // The report is the collection's, not a collection of its own.
  expect(types).not.toContain("export interface Aggregate");
  expect(emitCollections(reporting)).toContain(
    "ResourceClient<GateHouse, GateHouseCreate, GateHouseUpdate, GateHouseFilters, " +
      'Record<never, never>, GateHouseGroupKey, GateHouseMetric>, "list" | "listPage" | "create" | "update" | "aggregate">',
  );
});
