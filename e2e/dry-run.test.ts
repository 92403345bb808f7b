// Dry-run (docs/writes-and-retries.md): every rule of the real write runs, nothing is
// written and no id is consumed; a dry-run and the real write never disagree.
import { describe, expect, test } from "bun:test";
import { create, type Api, type ApiResponse } from "@erp/testing/api";
import { newCompany } from "@erp/testing/company";
import { comparable, expectProblem, nextAutoIncrement, snapshot, walk } from "@erp/testing/rules";
import { useServer } from "@erp/testing/suite";

const suite = useServer();
const TABLES = [
  "projects",
  "workers",
  "clients",
  "estimates",
  "subcontractors",
  "equipment",
  "equipment_rentals",
];

async function company(overrides: Parameters<typeof newCompany>[0] = {}): Promise<Api> {
  return suite.api.as((await newCompany(overrides)).token);
}

const nextIds = async (): Promise<number[]> => Promise.all(TABLES.map(nextAutoIncrement));

interface WriteRequest {
  method: "POST" | "PATCH" | "DELETE";
  path: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

const send = (api: Api, request: WriteRequest, dry?: "header" | "query"): Promise<ApiResponse> => {
  const headers: Record<string, string> = { ...request.headers };
  let path = request.path;
  if (dry === "header") headers["x-dry-run"] = "1";
  if (dry === "query") path += `${path.includes("?") ? "&" : "?"}dry_run=1`;
  if (request.rawBody !== undefined) headers["content-type"] = "application/json";
  return api.request(request.method, path, {
    body: request.body,
    rawBody: request.rawBody,
    headers,
  });
};

async function convertedEstimate(api: Api): Promise<number> {
  const id = await create(api, "/v1/estimates", { title: "Converted", amount: "10.00" });
  await walk(api, `/v1/estimates/${id}`, ["SENT", "ACCEPTED", "CONVERTED"]);
  return id;
}

async function machineWithRental(
  api: Api,
  billed: boolean,
): Promise<{ machine: number; project: number; rental: number }> {
  const project = await create(api, "/v1/projects", { name: "Site" });
  const machine = await create(api, "/v1/equipment", { name: "Machine" });
  const rental = await create(api, `/v1/equipment/${machine}/rentals`, {
    project_id: project,
    start_date: "2026-05-01",
    billed,
  });
  return { machine, project, rental };
}

interface Case {
  name: string;
  status: number;
  code?: string;
  company?: Parameters<typeof newCompany>[0];
  setup: (api: Api) => Promise<WriteRequest>;
}

const CASES: Case[] = [
  {
    name: "create a project",
    status: 201,
    setup: async () => ({
      method: "POST",
      path: "/v1/projects",
      body: { name: "New", code: "N-1", budget_amount: 10 },
    }),
  },
  {
    name: "create a rental",
    status: 201,
    setup: async (api) => {
      const project = await create(api, "/v1/projects", { name: "Site" });
      const machine = await create(api, "/v1/equipment", { name: "Lift" });
      return {
        method: "POST",
        path: `/v1/equipment/${machine}/rentals`,
        body: { project_id: project, start_date: "2026-05-01" },
      };
    },
  },
  {
    name: "create with several invalid fields",
    status: 422,
    code: "validation_failed",
    setup: async () => ({
      method: "POST",
      path: "/v1/projects",
      body: { code: "X", budget_amount: "1.999", start_date: "2026-02-30", status: "NOPE" },
    }),
  },
  {
    name: "create with an unknown field",
    status: 422,
    code: "validation_failed",
    setup: async () => ({ method: "POST", path: "/v1/workers", body: { name: "W", salary: 1 } }),
  },
  {
    name: "create with dates out of order",
    status: 422,
    code: "validation_failed",
    setup: async () => ({
      method: "POST",
      path: "/v1/projects",
      body: { name: "P", start_date: "2026-05-02", end_date: "2026-05-01" },
    }),
  },
  {
    name: "create with another company's client",
    status: 422,
    code: "validation_failed",
    setup: async () => {
      const theirs = await create(await company(), "/v1/clients", { name: "Theirs" });
      return { method: "POST", path: "/v1/projects", body: { name: "P", client_id: theirs } };
    },
  },
  {
    name: "create with a budget estimate that is not CONVERTED",
    status: 422,
    code: "validation_failed",
    setup: async (api) => {
      const estimate = await create(api, "/v1/estimates", { title: "Draft" });
      return {
        method: "POST",
        path: "/v1/projects",
        body: { name: "P", budget_estimate_id: estimate },
      };
    },
  },
  {
    name: "create with a used code",
    status: 409,
    code: "unique_violation",
    setup: async (api) => {
      await create(api, "/v1/projects", { name: "First", code: "DUP" });
      return { method: "POST", path: "/v1/projects", body: { name: "Second", code: "DUP" } };
    },
  },
  {
    name: "create with a used serial number",
    status: 409,
    code: "unique_violation",
    setup: async (api) => {
      await create(api, "/v1/equipment", { name: "First", serial_number: "S-1" });
      return {
        method: "POST",
        path: "/v1/equipment",
        body: { name: "Second", serial_number: "S-1" },
      };
    },
  },
  {
    name: "create an estimate that starts SENT",
    status: 409,
    code: "invalid_transition",
    setup: async () => ({
      method: "POST",
      path: "/v1/estimates",
      body: { title: "Sent", status: "SENT" },
    }),
  },
  {
    name: "create a project beyond the quota",
    status: 402,
    code: "quota_exceeded",
    company: { plan: "enterprise", quotas: { projects: 1 } },
    setup: async (api) => {
      await create(api, "/v1/projects", { name: "The one" });
      return { method: "POST", path: "/v1/projects", body: { name: "One too many" } };
    },
  },
  {
    name: "create a worker beyond the quota",
    status: 402,
    code: "quota_exceeded",
    company: { plan: "enterprise", quotas: { workers: 0 } },
    setup: async () => ({ method: "POST", path: "/v1/workers", body: { name: "None allowed" } }),
  },
  {
    name: "create a rental of RETIRED equipment",
    status: 422,
    code: "validation_failed",
    setup: async (api) => {
      const project = await create(api, "/v1/projects", { name: "Site" });
      const machine = await create(api, "/v1/equipment", { name: "Old", status: "RETIRED" });
      return {
        method: "POST",
        path: `/v1/equipment/${machine}/rentals`,
        body: { project_id: project, start_date: "2026-05-01" },
      };
    },
  },
  {
    name: "create a rental of deleted equipment",
    status: 404,
    code: "not_found",
    setup: async (api) => {
      const project = await create(api, "/v1/projects", { name: "Site" });
      const machine = await create(api, "/v1/equipment", { name: "Sold" });
      await api.delete(`/v1/equipment/${machine}`);
      return {
        method: "POST",
        path: `/v1/equipment/${machine}/rentals`,
        body: { project_id: project, start_date: "2026-05-01" },
      };
    },
  },
  {
    name: "create with a body that is not JSON",
    status: 400,
    code: "malformed_json",
    setup: async () => ({ method: "POST", path: "/v1/clients", rawBody: "{name:" }),
  },
  {
    name: "create an estimate without the add-on",
    status: 402,
    code: "feature_off",
    company: { addons: ["api"] },
    setup: async () => ({ method: "POST", path: "/v1/estimates", body: { title: "Gated" } }),
  },

  {
    name: "patch several fields",
    status: 200,
    setup: async (api) => {
      const id = await create(api, "/v1/projects", { name: "Old", budget_amount: "5.00" });
      return {
        method: "PATCH",
        path: `/v1/projects/${id}`,
        body: { name: "New", budget_amount: 7, status: "ACTIVE", billing_mode: "COST_PLUS" },
      };
    },
  },
  {
    name: "patch that changes nothing",
    status: 200,
    setup: async (api) => {
      const id = await create(api, "/v1/clients", { name: "Same" });
      return { method: "PATCH", path: `/v1/clients/${id}`, body: { name: "Same" } };
    },
  },
  {
    name: "patch a forbidden transition",
    status: 409,
    code: "invalid_transition",
    setup: async (api) => {
      const id = await create(api, "/v1/projects", { name: "Draft" });
      return { method: "PATCH", path: `/v1/projects/${id}`, body: { status: "COMPLETED" } };
    },
  },
  {
    name: "patch out of RETIRED",
    status: 409,
    code: "invalid_transition",
    setup: async (api) => {
      const id = await create(api, "/v1/equipment", { name: "Retired", status: "RETIRED" });
      return { method: "PATCH", path: `/v1/equipment/${id}`, body: { status: "AVAILABLE" } };
    },
  },
  {
    name: "patch the billing mode of an active project",
    status: 409,
    code: "billing_mode_locked",
    setup: async (api) => {
      const id = await create(api, "/v1/projects", { name: "Active", status: "ACTIVE" });
      return { method: "PATCH", path: `/v1/projects/${id}`, body: { billing_mode: "COST_PLUS" } };
    },
  },
  {
    name: "patch a sent estimate's amount",
    status: 409,
    code: "estimate_not_draft",
    setup: async (api) => {
      const id = await create(api, "/v1/estimates", { title: "Sent" });
      await walk(api, `/v1/estimates/${id}`, ["SENT"]);
      return { method: "PATCH", path: `/v1/estimates/${id}`, body: { amount: "1.00" } };
    },
  },
  {
    name: "patch a sent estimate's status alone",
    status: 200,
    setup: async (api) => {
      const id = await create(api, "/v1/estimates", { title: "Sent" });
      await walk(api, `/v1/estimates/${id}`, ["SENT"]);
      return { method: "PATCH", path: `/v1/estimates/${id}`, body: { status: "ACCEPTED" } };
    },
  },
  {
    name: "patch a billed rental",
    status: 409,
    code: "rental_billed",
    setup: async (api) => {
      const { machine, rental } = await machineWithRental(api, true);
      return {
        method: "PATCH",
        path: `/v1/equipment/${machine}/rentals/${rental}`,
        body: { end_date: "2026-06-01" },
      };
    },
  },
  {
    name: "patch a rental to billed",
    status: 200,
    setup: async (api) => {
      const { machine, rental } = await machineWithRental(api, false);
      return {
        method: "PATCH",
        path: `/v1/equipment/${machine}/rentals/${rental}`,
        body: { billed: true },
      };
    },
  },
  {
    name: "patch to a used code",
    status: 409,
    code: "unique_violation",
    setup: async (api) => {
      await create(api, "/v1/projects", { name: "Holder", code: "TAKEN" });
      const id = await create(api, "/v1/projects", { name: "Taker" });
      return { method: "PATCH", path: `/v1/projects/${id}`, body: { code: "TAKEN" } };
    },
  },
  {
    name: "patch to a deleted client",
    status: 422,
    code: "validation_failed",
    setup: async (api) => {
      const client = await create(api, "/v1/clients", { name: "Gone" });
      await api.delete(`/v1/clients/${client}`);
      const id = await create(api, "/v1/estimates", { title: "E" });
      return { method: "PATCH", path: `/v1/estimates/${id}`, body: { client_id: client } };
    },
  },
  {
    name: "patch with a stale If-Match",
    status: 412,
    code: "precondition_failed",
    setup: async (api) => {
      const id = await create(api, "/v1/workers", { name: "W" });
      const etag = (await api.get(`/v1/workers/${id}`)).headers.get("etag")!;
      await api.patch(`/v1/workers/${id}`, { phone: "1" });
      return {
        method: "PATCH",
        path: `/v1/workers/${id}`,
        body: { phone: "2" },
        headers: { "if-match": etag },
      };
    },
  },
  {
    name: "patch an unknown record",
    status: 404,
    code: "not_found",
    setup: async () => ({ method: "PATCH", path: "/v1/clients/999999999", body: { name: "X" } }),
  },

  {
    name: "delete a plain record",
    status: 200,
    setup: async (api) => {
      const id = await create(api, "/v1/subcontractors", { name: "S" });
      return { method: "DELETE", path: `/v1/subcontractors/${id}` };
    },
  },
  {
    name: "delete equipment with unbilled rentals",
    status: 200,
    setup: async (api) => {
      const { machine } = await machineWithRental(api, false);
      return { method: "DELETE", path: `/v1/equipment/${machine}` };
    },
  },
  {
    name: "delete a project with unbilled rentals",
    status: 200,
    setup: async (api) => {
      const { project } = await machineWithRental(api, false);
      return { method: "DELETE", path: `/v1/projects/${project}` };
    },
  },
  {
    name: "delete a client with projects and estimates",
    status: 200,
    setup: async (api) => {
      const client = await create(api, "/v1/clients", { name: "C" });
      await create(api, "/v1/projects", { name: "P", client_id: client });
      await create(api, "/v1/estimates", { title: "E", client_id: client });
      return { method: "DELETE", path: `/v1/clients/${client}` };
    },
  },
  {
    name: "delete a converted estimate backing a project",
    status: 409,
    code: "delete_blocked",
    setup: async (api) => {
      const estimate = await convertedEstimate(api);
      await create(api, "/v1/projects", { name: "Backed", budget_estimate_id: estimate });
      return { method: "DELETE", path: `/v1/estimates/${estimate}` };
    },
  },
  {
    name: "delete equipment with a billed rental",
    status: 409,
    code: "delete_blocked",
    setup: async (api) => {
      const { machine } = await machineWithRental(api, true);
      return { method: "DELETE", path: `/v1/equipment/${machine}` };
    },
  },
  {
    name: "delete a project with a billed rental",
    status: 409,
    code: "delete_blocked",
    setup: async (api) => {
      const { project } = await machineWithRental(api, true);
      return { method: "DELETE", path: `/v1/projects/${project}` };
    },
  },
  {
    name: "delete with a stale If-Match",
    status: 412,
    code: "precondition_failed",
    setup: async (api) => {
      const id = await create(api, "/v1/clients", { name: "C" });
      return {
        method: "DELETE",
        path: `/v1/clients/${id}`,
        headers: { "if-match": '"not-the-etag"' },
      };
    },
  },
  {
    name: "delete a deleted record",
    status: 404,
    code: "not_found",
    setup: async (api) => {
      const id = await create(api, "/v1/workers", { name: "W" });
      await api.delete(`/v1/workers/${id}`);
      return { method: "DELETE", path: `/v1/workers/${id}` };
    },
  },
];

/** The part of a success both modes share: what would change, what would be deleted and kept. */
function outcome(request: WriteRequest, response: ApiResponse): unknown {
  const data = response.body.data;
  if (request.method === "POST") return { created: data.created };
  if (request.method === "PATCH") {
    const { updated_at: _updatedAt, ...record } = data.record;
    return { id: data.id, changes: data.changes, record };
  }
  return {
    id: data.id,
    mode: data.mode,
    would_delete: data.would_delete,
    would_keep: data.would_keep,
  };
}

describe("a dry-run and the real write never disagree", () => {
  for (const testCase of CASES) {
    test(
      `${testCase.name}: ${testCase.status}${testCase.code ? ` ${testCase.code}` : ""} in ` +
        `both modes, and the dry-run writes nothing`,
      async () => {
        const api = await company(testCase.company);
        const request = await testCase.setup(api);
        const before = await snapshot(api);
        const ids = await nextIds();
        const dryRuns = [await send(api, request, "header"), await send(api, request, "query")];
        expect(await snapshot(api)).toEqual(before);
        expect(await nextIds()).toEqual(ids);

        const real = await send(api, request);
        expect({ status: real.status, code: real.body?.code }).toEqual({
          status: testCase.status,
          code: testCase.code,
        });
        for (const dry of dryRuns) {
          if (testCase.code) {
            expectProblem(dry, testCase.status, testCase.code);
            expect(comparable(dry)).toEqual(comparable(real));
          } else {
            expect(dry.status).toBe(request.method === "POST" ? 200 : testCase.status);
            expect(dry.body.data.dry_run).toBe(true);
            expect(real.body.data.dry_run).toBe(false);
            const dryOutcome = outcome(request, dry) as Record<string, unknown>;
            const realOutcome = outcome(request, real) as Record<string, unknown>;
            if (request.method === "POST")
              expect([dryOutcome.created, realOutcome.created]).toEqual([false, true]);
            else expect(dryOutcome).toEqual(realOutcome);
          }
        }
        if (testCase.code) {
          expect(await snapshot(api)).toEqual(before);
          expect(await nextIds()).toEqual(ids);
        }
      },
    );
  }
});

describe("dry-run results", () => {
  test(
    "a dry-run create answers 200 {id: null, created: false, dry_run: true}, with no " +
      "Location, and consumes no id",
    async () => {
      const api = await company();
      const next = await nextAutoIncrement("clients");
      const response = await api.post(
        "/v1/clients",
        { name: "Preview" },
        { headers: { "x-dry-run": "1" } },
      );
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ data: { id: null, created: false, dry_run: true } });
      expect(response.headers.get("location")).toBeNull();
      expect((await api.get("/v1/clients")).body.meta.total).toBe(0);
      expect(await nextAutoIncrement("clients")).toBe(next);
      const real = await api.post("/v1/clients", { name: "Real" });
      expect(real.status).toBe(201);
      expect(real.body.data).toEqual({ id: next, created: true, dry_run: false });
    },
  );

  test("the next create after several dry-runs gets exactly the next id", async () => {
    const api = await company();
    const first = await create(api, "/v1/workers", { name: "First" });
    for (let i = 0; i < 3; i += 1)
      expect((await api.post("/v1/workers?dry_run=1", { name: "Preview" })).status).toBe(200);
    expect(await create(api, "/v1/workers", { name: "Second" })).toBe(first + 1);
  });

  test(
    "a dry-run PATCH answers the changes and the would-be record, and the stored record " +
      "stays as it was",
    async () => {
      const api = await company();
      const id = await create(api, "/v1/projects", { name: "Stored", budget_amount: "10.00" });
      const before = await api.get(`/v1/projects/${id}`);
      const response = await api.patch(`/v1/projects/${id}?dry_run=1`, {
        name: "Would be",
        budget_amount: 12.5,
        status: "ACTIVE",
      });
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({
        id,
        updated: false,
        dry_run: true,
        changes: {
          name: { from: "Stored", to: "Would be" },
          budget_amount: { from: "10.00", to: "12.50" },
          status: { from: "DRAFT", to: "ACTIVE" },
        },
        record: { ...before.body.data, name: "Would be", budget_amount: "12.50", status: "ACTIVE" },
      });
      const after = await api.get(`/v1/projects/${id}`);
      expect(after.body).toEqual(before.body);
      expect(after.headers.get("etag")).toBe(before.headers.get("etag"));
    },
  );

  test("a dry-run DELETE answers what would go and what would stay, and deletes nothing", async () => {
    const api = await company();
    const { machine, project, rental } = await machineWithRental(api, false);
    const before = await snapshot(api);
    const response = await api.delete(`/v1/equipment/${machine}`, {
      headers: { "x-dry-run": "1" },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: {
        id: machine,
        deleted: false,
        dry_run: true,
        mode: "soft",
        would_delete: [
          { resource: "equipment", id: machine },
          { resource: "rentals", id: rental },
        ],
        would_keep: [],
      },
    });
    expect(await snapshot(api)).toEqual(before);
    expect((await api.get(`/v1/equipment/${machine}/rentals`)).body.data[0]).toMatchObject({
      id: rental,
      project_id: project,
    });
  });

  test("X-Dry-Run: 0 and dry_run=0 are real writes", async () => {
    const api = await company();
    expect(
      (await api.post("/v1/clients", { name: "A" }, { headers: { "x-dry-run": "0" } })).status,
    ).toBe(201);
    expect((await api.post("/v1/clients?dry_run=0", { name: "B" })).status).toBe(201);
    expect((await api.get("/v1/clients")).body.meta.total).toBe(2);
  });

  test("X-Dry-Run: true and dry_run=true are dry-runs too", async () => {
    const api = await company();
    expect(
      (await api.post("/v1/clients", { name: "A" }, { headers: { "x-dry-run": "true" } })).status,
    ).toBe(200);
    expect((await api.post("/v1/clients?dry_run=true", { name: "B" })).status).toBe(200);
    expect((await api.get("/v1/clients")).body.meta.total).toBe(0);
  });

  test(
    "a dry-run asked for in any way fails safe: an odd X-Dry-Run value or a query that " +
      "contradicts the header writes nothing",
    async () => {
      const api = await company();
      expect(
        (await api.post("/v1/clients", { name: "A" }, { headers: { "x-dry-run": "yes" } })).body
          .data.dry_run,
      ).toBe(true);
      expect(
        (await api.post("/v1/clients?dry_run=1", { name: "B" }, { headers: { "x-dry-run": "0" } }))
          .body.data.dry_run,
      ).toBe(true);
      expect((await api.get("/v1/clients")).body.meta.total).toBe(0);
    },
  );

  test("an invalid dry_run query value is 400 invalid_query and nothing is written", async () => {
    const api = await company();
    expectProblem(await api.post("/v1/clients?dry_run=maybe", { name: "A" }), 400, "invalid_query");
    expect((await api.get("/v1/clients")).body.meta.total).toBe(0);
  });

  test("dry-runs authenticate like any request", async () => {
    const api = await company();
    const response = await api.post(
      "/v1/clients",
      { name: "A" },
      { headers: { "x-dry-run": "1" }, token: null },
    );
    expectProblem(response, 401, "unauthorized");
  });
});
