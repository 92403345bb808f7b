// Every response the server gives validates against the schema the served OpenAPI document
// declares for its operation and status, checked twice: with ajv as contract-test tools do, and by
// Prism's validation proxy (`prism proxy`), which every request here goes through.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Api, type ApiResponse, type RequestOptions } from "@erp/testing/api";
import { newCompany } from "@erp/testing/company";
import { OpenApiContract } from "@erp/testing/openapi-contract";
import { startPrism, type Prism } from "@erp/testing/prism";
import { useServer } from "@erp/testing/suite";

type Json = Record<string, any>;

setDefaultTimeout(60_000);

const suite = useServer();
let contract: OpenApiContract;
let api: Api;
let direct: Api;
let prism: Prism;
let documentFile: string;
let checkedCount = 0;
const scratch = mkdtempSync(path.join(tmpdir(), "erp-prism-"));

/**
 * What Prism found wrong with our answer (its `sl-violations` header, response side only: the
 * requests that are wrong on purpose are reported too, rightly). A `fields=` read is skipped:
 * Prism 5 matches media types without their `+json` suffix, so it checks our
 * application/vnd.erp.sparse+json answer against the application/json (whole record) schema.
 */
function prismViolations(path: string, response: ApiResponse): unknown[] {
  if (/[?&]fields=/.test(path)) return [];
  const header = response.headers.get("sl-violations");
  if (!header) return [];
  return (JSON.parse(header) as { location: string[] }[]).filter(
    (violation) => violation.location[0] === "response",
  );
}

/** Sends through Prism, or (`via: "direct"`) straight to the server: Prism cannot forward a body it cannot parse. */
async function checked(
  method: string,
  path: string,
  options: RequestOptions = {},
  expected?: number,
  via: "prism" | "direct" = "prism",
) {
  const response = await (via === "prism" ? api : direct).request(method, path, options);
  if (expected !== undefined)
    expect(response.status, `${method} ${path}: ${response.text}`).toBe(expected);
  expect(contract.check(method, path, response)).toEqual([]);
  expect(prismViolations(path, response), `Prism on ${method} ${path}`).toEqual([]);
  checkedCount += 1;
  return response;
}

/** The example body the document gives for an operation's request. */
function example(path: string, method: string): Json {
  const schema = contract.document.paths[path][method].requestBody.content["application/json"]
    .schema as Json;
  const name = (schema.$ref as string).split("/").pop()!;
  return structuredClone(contract.document.components.schemas[name].examples[0]);
}

const unique = (body: Json): Json => {
  for (const field of ["code", "serial_number"])
    if (field in body) body[field] = `${body[field]}-${crypto.randomUUID().slice(0, 8)}`;
  return body;
};

beforeAll(async () => {
  const document = (await suite.api.get("/v1/openapi.json")).body;
  contract = new OpenApiContract(document);
  documentFile = path.join(scratch, "openapi.json");
  writeFileSync(documentFile, JSON.stringify(document));
  prism = await startPrism(documentFile, suite.server.baseUrl);
  const { token } = await newCompany();
  api = new Api(prism.baseUrl, token);
  direct = suite.api.as(token);
});

afterAll(async () => {
  await prism?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe("responses validate against the served document", () => {
  for (const resource of [
    "projects",
    "workers",
    "clients",
    "estimates",
    "subcontractors",
    "equipment",
  ]) {
    test(`${resource}: create, dry-runs, list, get, fields, update, delete and the 404 after`, async () => {
      const collection = `/v1/${resource}`;
      const body = unique(example(collection, "post"));
      const dryCreate = await checked(
        "POST",
        collection,
        { body, headers: { "x-dry-run": "1" } },
        200,
      );
      expect(dryCreate.body.data).toEqual({ id: null, created: false, dry_run: true });
      const created = await checked(
        "POST",
        collection,
        { body, headers: { "idempotency-key": crypto.randomUUID() } },
        201,
      );
      const member = `${collection}/${created.body.data.id}`;
      const list = await checked("GET", `${collection}?limit=500`, {}, 200);
      expect(list.body.meta.limit).toBe(100);
      const seek = await checked("GET", `${collection}?after_id=0&limit=1&total=false`, {}, 200);
      await checked(
        "GET",
        `${collection}?after_id=${seek.body.meta.next_after_id ?? seek.body.data[0].id}&limit=100`,
        {},
        200,
      );
      const firstField = Object.keys(body)[0]!;
      await checked("GET", `${collection}?fields=${firstField}`, {}, 200);
      const one = await checked("GET", member, {}, 200);
      await checked("GET", `${member}?fields=${firstField}`, {}, 200);
      await checked("GET", member, { headers: { "if-none-match": one.headers.get("etag")! } }, 304);
      const patch = example(`${collection}/{id}`, "patch");
      await checked("PATCH", `${member}?dry_run=1`, { body: patch }, 200);
      await checked(
        "PATCH",
        member,
        { body: patch, headers: { "if-match": one.headers.get("etag")! } },
        200,
      );
      await checked("DELETE", member, { headers: { "x-dry-run": "1" } }, 200);
      await checked("DELETE", member, {}, 200);
      await checked("GET", member, {}, 404);
    });
  }

  test("equipment rentals, lookups, usage and health", async () => {
    const equipment = await checked(
      "POST",
      "/v1/equipment",
      { body: unique(example("/v1/equipment", "post")) },
      201,
    );
    const project = await checked(
      "POST",
      "/v1/projects",
      { body: unique(example("/v1/projects", "post")) },
      201,
    );
    const rentals = `/v1/equipment/${equipment.body.data.id}/rentals`;
    const body = {
      ...example("/v1/equipment/{id}/rentals", "post"),
      project_id: project.body.data.id,
    };
    await checked("POST", rentals, { body, headers: { "x-dry-run": "1" } }, 200);
    const rental = await checked("POST", rentals, { body }, 201);
    await checked("GET", rentals, {}, 200);
    await checked(
      "PATCH",
      `${rentals}/${rental.body.data.id}`,
      { body: example("/v1/equipment/{id}/rentals/{rental_id}", "patch") },
      200,
    );
    await checked("PATCH", `${rentals}/${rental.body.data.id}`, { body: { billed: true } }, 200);
    await checked(
      "PATCH",
      `${rentals}/${rental.body.data.id}`,
      { body: { daily_rate: "1.00" } },
      409,
    );
    await checked(
      "DELETE",
      `/v1/equipment/${equipment.body.data.id}`,
      { headers: { "x-dry-run": "1" } },
      409,
    );
    await checked("GET", "/v1/trades", {}, 200);
    await checked("GET", "/v1/equipment-categories?limit=2&offset=1", {}, 200);
    await checked("GET", "/v1/trades?after_id=0&limit=2&total=false", {}, 200);
    await checked("GET", `${rentals}?after_id=0`, {}, 200);
    await checked("GET", "/v1/usage", {}, 200);
    await checked("GET", "/healthz", { token: null }, 200);
  });

  test("problem responses", async () => {
    await checked("GET", "/v1/projects", { token: null }, 401);
    await checked("GET", "/v1/projects", { token: "erp_not_a_token" }, 401);
    await checked("GET", "/v1/projects?bogus=1", {}, 400);
    await checked("GET", "/v1/projects?limit=0", {}, 400);
    await checked("GET", "/v1/projects?after_id=0&offset=0", {}, 400);
    await checked("GET", "/v1/projects?fields=nope", {}, 400);
    await checked("GET", "/v1/projects/999999999", {}, 404);
    await checked(
      "POST",
      "/v1/projects",
      { body: { name: "", bogus: 1, budget_amount: "1.234", end_date: "someday" } },
      422,
    );
    await checked(
      "POST",
      "/v1/projects",
      { rawBody: "{not json", headers: { "content-type": "application/json" } },
      400,
      "direct",
    );
    await checked(
      "POST",
      "/v1/projects",
      { rawBody: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } },
      415,
      "direct",
    );
    await checked(
      "POST",
      "/v1/projects",
      { body: { name: "Keyed" }, headers: { "idempotency-key": "" } },
      400,
    );
    const project = await checked("POST", "/v1/projects", { body: { name: "Rules" } }, 201);
    const member = `/v1/projects/${project.body.data.id}`;
    await checked("PATCH", member, { body: { status: "COMPLETED" } }, 409);
    await checked(
      "PATCH",
      member,
      { body: { name: "Changed" }, headers: { "if-match": '"stale"' } },
      412,
    );
    await checked("DELETE", member, { headers: { "if-match": '"stale"' } }, 412);
    const apiOnly = new Api(prism.baseUrl, (await newCompany({ addons: ["api"] })).token);
    const refused = await apiOnly.get("/v1/estimates");
    expect(refused.status).toBe(402);
    expect(contract.check("GET", "/v1/estimates", refused)).toEqual([]);
    expect(prismViolations("/v1/estimates", refused)).toEqual([]);
    console.log(
      `${checkedCount + 1} responses validated against the served OpenAPI document (ajv and Prism's proxy)`,
    );
  });
});

describe("the document alone", () => {
  test("Prism's mock server answers every GET operation from it, and its answers validate against it", async () => {
    const mock = await startPrism(documentFile);
    try {
      const mocked = new Api(mock.baseUrl, "erp_mock");
      const paths = Object.entries(contract.document.paths as Record<string, Json>)
        .filter(([, item]) => item.get)
        .map(([route]) => route);
      const findings: string[] = [];
      for (const route of paths) {
        const response = await mocked.get(route.replace(/\{[^}]+\}/g, "1"));
        if (response.status >= 400)
          findings.push(`${route}: ${response.status} ${response.text.slice(0, 200)}`);
        const violations = prismViolations(route, response);
        if (violations.length > 0) findings.push(`${route}: ${JSON.stringify(violations)}`);
      }
      console.log(
        `Prism mock: ${paths.length} GET operations answered, ${findings.length} with findings`,
      );
      expect(findings).toEqual([]);
    } finally {
      await mock.stop();
    }
  });
});
