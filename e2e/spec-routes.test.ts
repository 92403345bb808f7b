// The documents match the routes actually served: every route is documented with its schemas,
// nothing else is, and the document is rebuilt from the routes when it is requested.
import { afterAll, describe, expect, test } from "bun:test";
import { buildApp, type App, type AppDeps } from "@erp/server/app";
import { closeTestDb, testDb } from "@erp/testing/company";

type Json = Record<string, any>;

const METHODS = ["get", "post", "put", "patch", "delete"];
/** Routes deliberately left out of the document: the docs page's own script. */
const HIDDEN = new Set(["GET /v1/docs/scalar.js"]);
// A signed attachment link is its own credential (docs/attachments.md).
const PUBLIC = [
  "getHealth",
  "getOpenApiDocument",
  "getDocs",
  "getCollection",
  "downloadAttachmentLink",
];

// The documents touch no database; a lazy pool suffices and anything else the app is given
// (a usage meter, …) may do nothing.
const inert = new Proxy({}, { get: () => () => {} });
const newApp = (): App => buildApp({ database: testDb(), meter: inert } as unknown as AppDeps);

async function served(app: App, path: string): Promise<Json> {
  const response = await app.handle(new Request(`http://localhost${path}`));
  expect(response.status).toBe(200);
  return (await response.json()) as Json;
}

/** Every way the document falls short of the routes the app serves. */
function gaps(app: App, document: Json): string[] {
  const found: string[] = [];
  const servedOperations = new Set<string>();
  for (const route of app.routes) {
    const method = route.method.toLowerCase();
    if (!METHODS.includes(method)) continue;
    const key = `${route.method} ${route.path}`;
    if (HIDDEN.has(key)) continue;
    const template = route.path.replace(/:([^/]+)/g, "{$1}");
    servedOperations.add(`${method} ${template}`);
    const operation = document.paths[template]?.[method] as Json | undefined;
    if (!operation) {
      found.push(`${key}: not documented`);
      continue;
    }
    if (!operation.operationId || !operation.summary || !operation.tags?.length)
      found.push(`${key}: no operationId, summary or tag`);
    if (!operation.responses?.default)
      found.push(`${key}: no error responses (document it with operationDetail)`);
    const responses = Object.entries(operation.responses ?? {}) as [string, Json][];
    const success = responses.filter(([status, response]) => /^2/.test(status) && response.content);
    if (success.length === 0) found.push(`${key}: no success response schema`);
    for (const [status, response] of success) {
      for (const [type, media] of Object.entries(response.content as Json))
        if (!media.schema) found.push(`${key} ${status} ${type}: no schema`);
    }
    for (const [status, response] of responses.filter(([status]) => /^[45]|default/.test(status))) {
      const [problem, narrowed] =
        response.content?.["application/problem+json"]?.schema?.allOf ?? [];
      if (problem?.$ref !== "#/components/schemas/Problem")
        found.push(`${key} ${status}: not a problem+json response`);
      if (!(narrowed?.properties?.code?.enum?.length > 0))
        found.push(`${key} ${status}: no code enum`);
    }
    // An action on a member (POST …/{id}/test, …/rotate-secret: a path nothing is listed at)
    // may take no body; every other write does (a sub-collection's create included), JSON or, for
    // an attachment's upload, its bytes.
    const action =
      /\/:id\/[a-z-]+$/.test(route.path) &&
      !app.routes.some((other) => other.method === "GET" && other.path === route.path);
    if (
      (method === "post" || method === "patch") &&
      !action &&
      !Object.values((operation.requestBody?.content ?? {}) as Json).some((media) => media.schema)
    )
      found.push(`${key}: no request body schema`);
    for (const [, name] of route.path.matchAll(/:([^/]+)/g)) {
      if (
        !operation.parameters?.some(
          (parameter: Json) => parameter.in === "path" && parameter.name === name,
        )
      )
        found.push(`${key}: path parameter ${name} undocumented`);
    }
  }
  for (const [template, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const method of Object.keys(item)) {
      if (!servedOperations.has(`${method} ${template}`))
        found.push(`${method.toUpperCase()} ${template}: documented but not served`);
    }
  }
  return found;
}

afterAll(closeTestDb);

describe("the documents match the routes served", () => {
  test("every served route is documented with its schemas, and only those", async () => {
    const app = newApp();
    const document = await served(app, "/v1/openapi.json");
    expect(gaps(app, document)).toEqual([]);
    const operationIds = Object.values(document.paths as Record<string, Json>).flatMap((item) =>
      Object.values(item).map((operation) => operation.operationId),
    );
    expect(new Set(operationIds).size).toBe(operationIds.length);
  });

  test("a route added without schemas is caught, and the document is rebuilt when requested", async () => {
    const app = newApp();
    expect(gaps(app, await served(app, "/v1/openapi.json"))).toEqual([]);
    app.post("/v1/bare", () => "bare");
    const document = await served(app, "/v1/openapi.json");
    expect(document.paths["/v1/bare"]?.post).toBeDefined();
    expect(gaps(app, document)).toEqual([
      "POST /v1/bare: no operationId, summary or tag",
      "POST /v1/bare: no error responses (document it with operationDetail)",
      "POST /v1/bare: no success response schema",
      "POST /v1/bare: no request body schema",
    ]);
  });

  test("only the spec surfaces, /healthz and signed attachment links need no token; every tag and parameter is defined", async () => {
    const document = await served(newApp(), "/v1/openapi.json");
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({
      type: "http",
      scheme: "bearer",
    });
    const operations = Object.values(document.paths as Record<string, Json>).flatMap(
      (item) => Object.values(item) as Json[],
    );
    const open = operations.filter(
      (operation) => Array.isArray(operation.security) && operation.security.length === 0,
    );
    expect(open.map((operation) => operation.operationId).sort()).toEqual([...PUBLIC].sort());
    const tags = new Set((document.tags as Json[]).map((tag) => tag.name));
    for (const operation of operations)
      for (const tag of operation.tags) expect(tags.has(tag), tag).toBe(true);
    const headers = operations
      .filter((operation) => operation.operationId === "updateProject")[0]!
      .parameters.map((p: Json) => p.$ref ?? p.name);
    expect(headers).toEqual(
      expect.arrayContaining([
        "#/components/parameters/IdempotencyKey",
        "#/components/parameters/XDryRun",
        "#/components/parameters/IfMatch",
      ]),
    );
    const list = operations.find((operation) => operation.operationId === "listProjects")!;
    expect(list.parameters.map((p: Json) => p.name ?? p.$ref)).toEqual([
      "limit",
      "offset",
      "after_id",
      "after",
      "total",
      "fields",
      "expand",
      "sort",
      "q",
      "code",
      "client_id",
      "billing_mode",
      "budget_estimate_id",
      "currency",
      "external_id",
      "status",
      "budget_amount",
      "start_date",
      "end_date",
      "created_at",
      "updated_at",
      "updated_since",
      "include_deleted",
      "#/components/parameters/IfNoneMatch",
      "#/components/parameters/XRequestId",
      "#/components/parameters/Traceparent",
    ]);
  });

  test("nullable fields are 3.1 type unions, integers are integers, components have stable names", async () => {
    const document = await served(newApp(), "/v1/openapi.json");
    const text = JSON.stringify(document);
    expect(text).not.toContain('"nullable"');
    const schemas = document.components.schemas as Json;
    for (const name of [
      "Project",
      "ProjectCreate",
      "ProjectUpdate",
      "ProjectList",
      "ProjectItem",
      "ProjectUpdateResult",
      "ProjectCreatedResult",
      "ProjectCreated",
      "ProjectUpsertResult",
      "ProjectUpsertOutcome",
      "DeleteResult",
      "ListMeta",
      "Problem",
      "FieldError",
      "Rental",
      "RentalCreate",
      "Trade",
      "EquipmentCategory",
    ]) {
      expect(schemas[name], name).toBeDefined();
    }
    expect(schemas.Project.properties.client_id.type).toEqual(["integer", "null"]);
    expect(schemas.Project.properties.id.type).toBe("integer");
    expect(schemas.ListMeta.properties.total.type).toBe("integer");
    // A create's 201 and its dry-run's 200 share one schema, so the id is an integer or null.
    expect(schemas.ProjectCreated.properties.id.type).toEqual(["integer", "null"]);
  });

  test(
    "in the served text each operation lists its normal answer first: a create's 201 before " +
      "its dry-run's 200",
    async () => {
      const response = await newApp().handle(new Request("http://localhost/v1/openapi.json"));
      const text = await response.text();
      const document = JSON.parse(text) as Json;
      // Each operation's operationId comes before its responses in the text.
      const first = Object.fromEntries(
        [...text.matchAll(/"operationId":"(\w+)".*?"responses":\{"(\w+)"/g)].map((match) => [
          match[1],
          match[2],
        ]),
      );
      const operations = Object.values(document.paths as Record<string, Json>).flatMap(
        (item) => Object.values(item) as Json[],
      );
      expect(Object.keys(first)).toHaveLength(operations.length);
      const creating = operations
        .filter((operation) => operation.responses["201"])
        .map((operation) => operation.operationId as string);
      expect(creating).toEqual(
        expect.arrayContaining([
          "createProject",
          "upsertProjectByExternalId",
          "createEquipmentRental",
          "createWebhookEndpoint",
        ]),
      );
      for (const operation of operations)
        expect(`${operation.operationId} ${first[operation.operationId]}`).toBe(
          `${operation.operationId} ${creating.includes(operation.operationId) ? "201" : "200"}`,
        );
    },
  );

  test("every request of the collection is a served route", async () => {
    const app = newApp();
    const collection = await served(app, "/v1/collection.json");
    const routes = app.routes.map((route) => ({
      method: route.method,
      pattern: new RegExp(`^${route.path.replace(/:[^/]+/g, "[^/]+")}$`),
    }));
    const requests = (collection.item as Json[]).flatMap((folder) => folder.item as Json[]);
    expect(requests.length).toBeGreaterThan(30);
    for (const { request } of requests) {
      const path = `/${request.url.path.join("/")}`;
      expect(
        routes.some((route) => route.method === request.method && route.pattern.test(path)),
        `${request.method} ${path}`,
      ).toBe(true);
    }
  });
});
