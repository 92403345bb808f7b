// Every response the server gives validates against the schema the served OpenAPI document
// declares for its operation and status, checked with ajv as contract-test tools do.
import { beforeAll, describe, expect, test } from "bun:test";
import type { Api, RequestOptions } from "@erp/testing/api";
import { newCompany } from "@erp/testing/company";
import { OpenApiContract } from "@erp/testing/openapi-contract";
import { useServer } from "@erp/testing/suite";

type Json = Record<string, any>;

const suite = useServer();
let contract: OpenApiContract;
let api: Api;
let checkedCount = 0;

async function checked(method: string, path: string, options: RequestOptions = {}, expected?: number) {
  const response = await api.request(method, path, options);
  if (expected !== undefined) expect(response.status, `${method} ${path}: ${response.text}`).toBe(expected);
  expect(contract.check(method, path, response)).toEqual([]);
  checkedCount += 1;
  return response;
}

/** The example body the document gives for an operation's request. */
function example(path: string, method: string): Json {
  const schema = contract.document.paths[path][method].requestBody.content["application/json"].schema as Json;
  const name = (schema.$ref as string).split("/").pop()!;
  return structuredClone(contract.document.components.schemas[name].examples[0]);
}

const unique = (body: Json): Json => {
  for (const field of ["code", "serial_number"]) if (field in body) body[field] = `${body[field]}-${crypto.randomUUID().slice(0, 8)}`;
  return body;
};

beforeAll(async () => {
  contract = new OpenApiContract((await suite.api.get("/v1/openapi.json")).body);
  api = suite.api.as((await newCompany()).token);
});

describe("responses validate against the served document", () => {
  for (const resource of ["projects", "workers", "clients", "estimates", "subcontractors", "equipment"]) {
    test(`${resource}: create, dry-runs, list, get, fields, update, delete and the 404 after`, async () => {
      const collection = `/v1/${resource}`;
      const body = unique(example(collection, "post"));
      const dryCreate = await checked("POST", collection, { body, headers: { "x-dry-run": "1" } }, 200);
      expect(dryCreate.body.data).toEqual({ id: null, created: false, dry_run: true });
      const created = await checked("POST", collection, { body, headers: { "idempotency-key": crypto.randomUUID() } }, 201);
      const member = `${collection}/${created.body.data.id}`;
      const list = await checked("GET", `${collection}?limit=500`, {}, 200);
      expect(list.body.meta.limit).toBe(100);
      const firstField = Object.keys(body)[0]!;
      await checked("GET", `${collection}?fields=${firstField}`, {}, 200);
      const one = await checked("GET", member, {}, 200);
      await checked("GET", `${member}?fields=${firstField}`, {}, 200);
      await checked("GET", member, { headers: { "if-none-match": one.headers.get("etag")! } }, 304);
      const patch = example(`${collection}/{id}`, "patch");
      await checked("PATCH", `${member}?dry_run=1`, { body: patch }, 200);
      await checked("PATCH", member, { body: patch, headers: { "if-match": one.headers.get("etag")! } }, 200);
      await checked("DELETE", member, { headers: { "x-dry-run": "1" } }, 200);
      await checked("DELETE", member, {}, 200);
      await checked("GET", member, {}, 404);
    });
  }

  test("equipment rentals, lookups, usage and health", async () => {
    const equipment = await checked("POST", "/v1/equipment", { body: unique(example("/v1/equipment", "post")) }, 201);
    const project = await checked("POST", "/v1/projects", { body: unique(example("/v1/projects", "post")) }, 201);
    const rentals = `/v1/equipment/${equipment.body.data.id}/rentals`;
    const body = { ...example("/v1/equipment/{id}/rentals", "post"), project_id: project.body.data.id };
    await checked("POST", rentals, { body, headers: { "x-dry-run": "1" } }, 200);
    const rental = await checked("POST", rentals, { body }, 201);
    await checked("GET", rentals, {}, 200);
    await checked("PATCH", `${rentals}/${rental.body.data.id}`, { body: example("/v1/equipment/{id}/rentals/{rental_id}", "patch") }, 200);
    await checked("PATCH", `${rentals}/${rental.body.data.id}`, { body: { billed: true } }, 200);
    await checked("PATCH", `${rentals}/${rental.body.data.id}`, { body: { daily_rate: "1.00" } }, 409);
    await checked("DELETE", `/v1/equipment/${equipment.body.data.id}`, { headers: { "x-dry-run": "1" } }, 409);
    await checked("GET", "/v1/trades", {}, 200);
    await checked("GET", "/v1/equipment-categories?limit=2&offset=1", {}, 200);
    await checked("GET", "/v1/usage", {}, 200);
    await checked("GET", "/healthz", { token: null }, 200);
  });

  test("problem responses", async () => {
    await checked("GET", "/v1/projects", { token: null }, 401);
    await checked("GET", "/v1/projects", { token: "erp_not_a_token" }, 401);
    await checked("GET", "/v1/projects?bogus=1", {}, 400);
    await checked("GET", "/v1/projects?limit=0", {}, 400);
    await checked("GET", "/v1/projects?fields=nope", {}, 400);
    await checked("GET", "/v1/projects/999999999", {}, 404);
    await checked("POST", "/v1/projects", { body: { name: "", bogus: 1, budget_amount: "1.234", end_date: "someday" } }, 422);
    await checked("POST", "/v1/projects", { rawBody: "{not json", headers: { "content-type": "application/json" } }, 400);
    await checked("POST", "/v1/projects", { rawBody: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } }, 415);
    await checked("POST", "/v1/projects", { body: { name: "Keyed" }, headers: { "idempotency-key": "" } }, 400);
    const project = await checked("POST", "/v1/projects", { body: { name: "Rules" } }, 201);
    const member = `/v1/projects/${project.body.data.id}`;
    await checked("PATCH", member, { body: { status: "COMPLETED" } }, 409);
    await checked("PATCH", member, { body: { name: "Changed" }, headers: { "if-match": '"stale"' } }, 412);
    await checked("DELETE", member, { headers: { "if-match": '"stale"' } }, 412);
    const apiOnly = suite.api.as((await newCompany({ addons: ["api"] })).token);
    const refused = await apiOnly.get("/v1/estimates");
    expect(refused.status).toBe(402);
    expect(contract.check("GET", "/v1/estimates", refused)).toEqual([]);
    console.log(`${checkedCount + 1} responses validated against the served OpenAPI document`);
  });
});
