// Fault suite: tenant walls. Company B, with every add-on, aims at company A's records on every
// route and method the served OpenAPI document lists: A's ids are 404 everywhere (records,
// sub-collections, histories), A's ids as references are unknown, A's ids as filters find nothing,
// an idempotency key A used means nothing to B, and no answer to B carries anything of A's.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Api, ApiResponse } from "@erp/testing/api";
import { upload } from "@erp/testing/attachments";
import { newCompany } from "@erp/testing/company";
import { SAMPLES } from "@erp/testing/samples";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(60_000);

const suite = useServer();
const SECRET = `A-secret-${crypto.randomUUID().slice(0, 8)}`;
let a: Api;
let b: Api;
/** A's ids by resource path segment, plus its rental. */
const ids: Record<string, number> = {};
let rentalId = 0;
let paths: Record<string, Record<string, unknown>> = {};
let tries = 0;
const leaks: string[] = [];

const created = (response: ApiResponse): number => {
  if (response.status !== 201)
    throw new Error(`setup create answered ${response.status}: ${response.text}`);
  return response.body.data.id;
};

/** Every answer to B is checked for A's data, whatever its status. */
async function asB(send: () => Promise<ApiResponse>): Promise<ApiResponse> {
  tries += 1;
  const response = await send();
  if (response.text.includes(SECRET))
    leaks.push(`${response.status} ${response.text.slice(0, 200)}`);
  expect(response.status).toBeLessThan(500);
  return response;
}

beforeAll(async () => {
  const tokenA = (await newCompany()).token;
  a = suite.api.as(tokenA);
  b = suite.api.as((await newCompany()).token);
  for (const sample of SAMPLES) {
    const body = {
      ...sample.create,
      [sample.title]: `${SECRET} ${sample.resource}`,
      external_id: `wall-${sample.resource}`,
    };
    ids[sample.resource] = created(
      await a.post(`/v1/${sample.resource}`, body, {
        headers: { "idempotency-key": `wall-${sample.resource}` },
      }),
    );
  }
  ids.attachments = (
    await upload(suite.server.baseUrl, tokenA, `/v1/projects/${ids.projects}`, SECRET, {
      filename: `${SECRET}.txt`,
      contentType: "text/plain",
    })
  ).body.data.id;
  ids.trades = (await a.get("/v1/trades")).body.data[0].id;
  ids["equipment-categories"] = (await a.get("/v1/equipment-categories")).body.data[0].id;
  rentalId = created(
    await a.post(`/v1/equipment/${ids.equipment}/rentals`, {
      project_id: ids.projects,
      start_date: "2026-04-01",
      daily_rate: "123.45",
    }),
  );
  // Give A's records histories beyond their creation.
  await a.patch(`/v1/workers/${ids.workers}`, { phone: SECRET.slice(0, 20) });
  paths = (await suite.api.get("/v1/openapi.json")).body.paths;
});

describe("tenant walls", () => {
  test("every route with an id answers B 404 not_found for A's ids, on every method", async () => {
    let routes = 0;
    for (const [template, operations] of Object.entries(paths)) {
      if (!template.includes("{") || template.includes("{external_id}")) continue;
      const resource = template.split("/")[2]!;
      const url = template
        .replace("{id}", String(ids[resource]))
        .replace("{rental_id}", String(rentalId));
      for (const method of Object.keys(operations).filter((m) =>
        ["get", "post", "patch", "delete", "put"].includes(m),
      )) {
        routes += 1;
        const sample = SAMPLES.find((s) => s.resource === resource);
        const body =
          method === "post"
            ? { project_id: ids.projects, start_date: "2026-05-01" }
            : method === "patch"
              ? template.includes("rental")
                ? { end_date: "2026-04-30" }
                : sample?.update
              : undefined;
        for (const dryRun of method === "get" ? [""] : ["", "?dry_run=1"]) {
          const response = await asB(() =>
            b.request(method.toUpperCase(), `${url}${dryRun}`, { body }),
          );
          if (response.status !== 404)
            throw new Error(
              `${method.toUpperCase()} ${url}${dryRun} answered B ${response.status}: ${response.text}`,
            );
          expect(response.body.code).toBe("not_found");
        }
      }
    }
    console.log(
      `[fault: tenant walls] ${routes} route×method pairs with A's ids, ${tries} requests so ` +
        `far, leaks ${leaks.length}`,
    );
    expect(routes).toBeGreaterThanOrEqual(20);
  });

  test(
    "external ids are per company: B's upsert of A's external id makes B's own record and " +
      "leaves A's alone",
    async () => {
      for (const sample of SAMPLES) {
        const response = await asB(() =>
          b.request("PUT", `/v1/${sample.resource}/by-external-id/wall-${sample.resource}`, {
            body: sample.create,
          }),
        );
        expect(response.status).toBe(201);
        expect(response.body.data.id).not.toBe(ids[sample.resource]);
        const batch = await asB(() =>
          b.post(`/v1/${sample.resource}/batch`, {
            on_conflict: "update",
            items: [{ ...sample.create, external_id: `wall-${sample.resource}` }],
          }),
        );
        expect(batch.body.data.results[0]).toMatchObject({
          status: 200,
          id: response.body.data.id,
        });
        const mine = await a.get(`/v1/${sample.resource}/${ids[sample.resource]}`);
        expect(mine.body.data[sample.title]).toBe(`${SECRET} ${sample.resource}`);
      }
    },
  );

  test(
    "A's ids as references in B's bodies are unknown_reference (422), on creates, updates " +
      "and dry-runs",
    async () => {
      const references: [string, Record<string, unknown>, string][] = [
        ["projects", { name: "B project", client_id: ids.clients }, "client_id"],
        [
          "projects",
          { name: "B project", budget_estimate_id: ids.estimates },
          "budget_estimate_id",
        ],
        ["workers", { name: "B worker", trade_id: ids.trades }, "trade_id"],
        ["estimates", { title: "B estimate", amount: "1.00", client_id: ids.clients }, "client_id"],
        ["subcontractors", { name: "B sub", trade_id: ids.trades }, "trade_id"],
        [
          "equipment",
          { name: "B digger", serial_number: "B-1", category_id: ids["equipment-categories"] },
          "category_id",
        ],
      ];
      const ownEquipment = created(
        await b.post("/v1/equipment", {
          name: "B digger",
          serial_number: `B-${crypto.randomUUID().slice(0, 6)}`,
        }),
      );
      for (const [resource, body, field] of references) {
        for (const dryRun of ["", "?dry_run=1"]) {
          const response = await asB(() => b.post(`/v1/${resource}${dryRun}`, body));
          expect(response.status).toBe(422);
          expect(response.body.errors).toContainEqual(
            expect.objectContaining({ field, code: "unknown_reference" }),
          );
        }
      }
      const rental = await asB(() =>
        b.post(`/v1/equipment/${ownEquipment}/rentals`, {
          project_id: ids.projects,
          start_date: "2026-05-01",
        }),
      );
      expect(rental.status).toBe(422);
      expect(rental.body.errors).toContainEqual(
        expect.objectContaining({ field: "project_id", code: "unknown_reference" }),
      );
      const ownWorker = created(await b.post("/v1/workers", { name: "B worker" }));
      const patched = await asB(() =>
        b.patch(`/v1/workers/${ownWorker}`, { trade_id: ids.trades }),
      );
      expect(patched.status).toBe(422);
      expect(patched.body.errors).toContainEqual(
        expect.objectContaining({ field: "trade_id", code: "unknown_reference" }),
      );
    },
  );

  test("filters with A's ids, searches for A's text and the feed find nothing of A's", async () => {
    const lists = [
      `/v1/projects?client_id=${ids.clients}`,
      `/v1/estimates?client_id=${ids.clients}`,
      `/v1/workers?trade_id=${ids.trades}`,
      `/v1/subcontractors?trade_id=${ids.trades}`,
      `/v1/equipment?category_id=${ids["equipment-categories"]}`,
      ...SAMPLES.map(
        (s) => `/v1/${s.resource}?q=${encodeURIComponent(SECRET)}&include_deleted=true`,
      ),
    ];
    for (const path of lists) {
      const response = await asB(() => b.get(path));
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual([]);
    }
    // B's feed holds B's own writes only (the leak check above also sees every body).
    for (const path of ["/v1/events?limit=100", "/v1/events?resource=workers&limit=100"]) {
      const response = await asB(() => b.get(path));
      expect(response.status).toBe(200);
      for (const event of response.body.data as { resource: string; record_id: number }[]) {
        expect(event.record_id).not.toBe(ids[event.resource]);
      }
    }
  });

  test("an Idempotency-Key A used is B's own: B's write runs, is B's, and A's replay stays A's", async () => {
    const body = { name: "B's worker under A's key" };
    const response = await asB(() =>
      b.post("/v1/workers", body, { headers: { "idempotency-key": "wall-workers" } }),
    );
    expect(response.status).toBe(201);
    expect(response.headers.get("idempotent-replayed")).toBeNull();
    expect(response.body.data.id).not.toBe(ids.workers);
    expect((await b.get(`/v1/workers/${response.body.data.id}`)).body.data.name).toBe(body.name);
    const replay = await a.post(
      "/v1/workers",
      { ...SAMPLES[1]!.create, name: `${SECRET} workers`, external_id: "wall-workers" },
      { headers: { "idempotency-key": "wall-workers" } },
    );
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.data.id).toBe(ids.workers);
  });

  test("A's records are untouched and nothing of A's reached B", async () => {
    for (const sample of SAMPLES) {
      const record = await a.get(`/v1/${sample.resource}/${ids[sample.resource]}`);
      expect(record.status).toBe(200);
      expect(record.body.data.deleted_at ?? null).toBeNull();
    }
    expect(
      (await a.get(`/v1/equipment/${ids.equipment}/rentals/${rentalId}`)).body.data,
    ).toMatchObject({ daily_rate: "123.45", end_date: null });
    console.log(
      `[fault: tenant walls] ${tries} requests as company B against company A's data: 0 5xx, ${leaks.length} leaks`,
    );
    expect(leaks).toEqual([]);
  });
});
