// Write rules (docs/concepts.md): states and transitions, billing-mode lock, estimates
// out of draft, live references of the same company, unique codes and If-Match.
import { beforeAll, describe, expect, test } from "bun:test";
import { create, type Api } from "@erp/testing/api";
import { newCompany } from "@erp/testing/company";
import { expectProblem, walk } from "@erp/testing/rules";
import { useServer } from "@erp/testing/suite";

const suite = useServer();
let api: Api;
let other: Api;

beforeAll(async () => {
  api = suite.api.as((await newCompany()).token);
  other = suite.api.as((await newCompany()).token);
});

/** Paths from the create status to every status of a machine, through allowed transitions. */
const PROJECT_PATHS: Record<string, string[]> = {
  DRAFT: [],
  ACTIVE: ["ACTIVE"],
  ON_HOLD: ["ACTIVE", "ON_HOLD"],
  COMPLETED: ["ACTIVE", "COMPLETED"],
  CANCELLED: ["CANCELLED"],
};
const PROJECT_ALLOWED: Record<string, string[]> = {
  DRAFT: ["ACTIVE", "CANCELLED"],
  ACTIVE: ["ON_HOLD", "COMPLETED", "CANCELLED"],
  ON_HOLD: ["ACTIVE", "CANCELLED"],
  COMPLETED: [],
  CANCELLED: [],
};
const ESTIMATE_PATHS: Record<string, string[]> = {
  DRAFT: [],
  SENT: ["SENT"],
  ACCEPTED: ["SENT", "ACCEPTED"],
  REJECTED: ["SENT", "REJECTED"],
  CONVERTED: ["SENT", "ACCEPTED", "CONVERTED"],
};
const ESTIMATE_ALLOWED: Record<string, string[]> = {
  DRAFT: ["SENT"],
  SENT: ["ACCEPTED", "REJECTED", "DRAFT"],
  REJECTED: ["DRAFT"],
  ACCEPTED: ["CONVERTED"],
  CONVERTED: [],
};

async function transitionTable(
  resource: string,
  title: string,
  paths: Record<string, string[]>,
  allowed: Record<string, string[]>,
) {
  const outcomes: string[] = [];
  const expected: string[] = [];
  for (const from of Object.keys(paths)) {
    for (const to of Object.keys(paths)) {
      const id = await create(api, `/v1/${resource}`, { [title]: `${from} to ${to}` });
      await walk(api, `/v1/${resource}/${id}`, paths[from]!);
      const response = await api.patch(`/v1/${resource}/${id}`, { status: to });
      const after = (await api.get(`/v1/${resource}/${id}`)).body.data.status;
      outcomes.push(`${from}→${to}: ${response.status} ${response.body.code ?? ""} now ${after}`);
      const ok = from === to || allowed[from]!.includes(to);
      expected.push(
        `${from}→${to}: ${ok ? "200 " : "409 invalid_transition"} now ${ok ? to : from}`,
      );
      if (!ok) expectProblem(response, 409, "invalid_transition");
    }
  }
  expect(outcomes).toEqual(expected);
}

describe("states and transitions", () => {
  test(
    "projects move only along DRAFT→ACTIVE|CANCELLED, ACTIVE→ON_HOLD|COMPLETED|CANCELLED, " +
      "ON_HOLD→ACTIVE|CANCELLED",
    async () => {
      await transitionTable("projects", "name", PROJECT_PATHS, PROJECT_ALLOWED);
    },
  );

  test(
    "estimates move only along DRAFT→SENT, SENT→ACCEPTED|REJECTED|DRAFT, REJECTED→DRAFT, " +
      "ACCEPTED→CONVERTED",
    async () => {
      await transitionTable("estimates", "title", ESTIMATE_PATHS, ESTIMATE_ALLOWED);
    },
  );

  test("equipment moves freely among its statuses, but RETIRED is final", async () => {
    const statuses = ["AVAILABLE", "IN_USE", "MAINTENANCE", "RETIRED"];
    const id = await create(api, "/v1/equipment", { name: "Excavator" });
    await walk(api, `/v1/equipment/${id}`, [
      "IN_USE",
      "MAINTENANCE",
      "AVAILABLE",
      "MAINTENANCE",
      "IN_USE",
      "AVAILABLE",
      "RETIRED",
    ]);
    for (const status of statuses.filter((s) => s !== "RETIRED")) {
      expectProblem(await api.patch(`/v1/equipment/${id}`, { status }), 409, "invalid_transition");
    }
    const same = await api.patch(`/v1/equipment/${id}`, { status: "RETIRED" });
    expect(same.status).toBe(200);
    expect((await api.get(`/v1/equipment/${id}`)).body.data.status).toBe("RETIRED");
    for (const status of statuses) {
      expect((await api.post("/v1/equipment", { name: `Born ${status}`, status })).status).toBe(
        201,
      );
    }
  });

  test("workers, clients and subcontractors move freely between ACTIVE and INACTIVE", async () => {
    for (const resource of ["workers", "clients", "subcontractors"]) {
      const id = await create(api, `/v1/${resource}`, {
        name: `Free ${resource}`,
        status: "INACTIVE",
      });
      await walk(api, `/v1/${resource}/${id}`, ["ACTIVE", "INACTIVE", "ACTIVE"]);
      expect((await api.get(`/v1/${resource}/${id}`)).body.data.status).toBe("ACTIVE");
    }
  });

  test("a project is created in DRAFT or ACTIVE (DRAFT by default), never further along", async () => {
    const plain = await create(api, "/v1/projects", { name: "Default start" });
    expect((await api.get(`/v1/projects/${plain}`)).body.data.status).toBe("DRAFT");
    expect(
      (await api.post("/v1/projects", { name: "Active start", status: "ACTIVE" })).status,
    ).toBe(201);
    const before = (await api.get("/v1/projects")).body.meta.total;
    for (const status of ["ON_HOLD", "COMPLETED", "CANCELLED"]) {
      expectProblem(
        await api.post("/v1/projects", { name: `Born ${status}`, status }),
        409,
        "invalid_transition",
      );
    }
    expect((await api.get("/v1/projects")).body.meta.total).toBe(before);
  });

  test("an estimate is always created in DRAFT", async () => {
    for (const status of ["SENT", "ACCEPTED", "REJECTED", "CONVERTED"]) {
      expectProblem(
        await api.post("/v1/estimates", { title: `Born ${status}`, status }),
        409,
        "invalid_transition",
      );
    }
    const id = await create(api, "/v1/estimates", { title: "Draft", status: "DRAFT" });
    expect((await api.get(`/v1/estimates/${id}`)).body.data.status).toBe("DRAFT");
  });

  test("an unknown status value is a 422 naming the field", async () => {
    const id = await create(api, "/v1/projects", { name: "Bad status" });
    const response = await api.patch(`/v1/projects/${id}`, { status: "PAUSED" });
    expectProblem(response, 422, "validation_failed");
    expect(response.body.errors.map((e: { field: string }) => e.field)).toEqual(["status"]);
  });

  test("a PATCH that leaves out status and other enum fields keeps their stored values", async () => {
    const worker = await create(api, "/v1/workers", { name: "Away", status: "INACTIVE" });
    const project = await create(api, "/v1/projects", {
      name: "Running",
      status: "ACTIVE",
      billing_mode: "COST_PLUS",
    });
    const workerPatch = await api.patch(`/v1/workers/${worker}`, { phone: "555-0100" });
    const projectPatch = await api.patch(`/v1/projects/${project}`, { name: "Running still" });
    expect([workerPatch.status, projectPatch.status]).toEqual([200, 200]);
    expect(workerPatch.body.data.changes).toEqual({ phone: { from: null, to: "555-0100" } });
    expect((await api.get(`/v1/workers/${worker}`)).body.data.status).toBe("INACTIVE");
    expect((await api.get(`/v1/projects/${project}`)).body.data).toMatchObject({
      status: "ACTIVE",
      billing_mode: "COST_PLUS",
    });
  });

  test("setting the current status is a no-op, even in a final status", async () => {
    const id = await create(api, "/v1/projects", { name: "Done", status: "ACTIVE" });
    await walk(api, `/v1/projects/${id}`, ["COMPLETED"]);
    const before = await api.get(`/v1/projects/${id}`);
    const response = await api.patch(`/v1/projects/${id}`, { status: "COMPLETED" });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id, updated: false, dry_run: false, changes: {} });
    expect((await api.get(`/v1/projects/${id}`)).headers.get("etag")).toBe(
      before.headers.get("etag"),
    );
  });

  test("a refused transition changes nothing, not even the other fields sent with it", async () => {
    const id = await create(api, "/v1/projects", { name: "Finished", status: "ACTIVE" });
    await walk(api, `/v1/projects/${id}`, ["COMPLETED"]);
    const before = await api.get(`/v1/projects/${id}`);
    expectProblem(
      await api.patch(`/v1/projects/${id}`, { status: "ACTIVE", name: "Reopened" }),
      409,
      "invalid_transition",
    );
    expect((await api.get(`/v1/projects/${id}`)).body).toEqual(before.body);
  });
});

describe("billing mode", () => {
  test("a draft project's billing mode may change", async () => {
    const id = await create(api, "/v1/projects", { name: "Draft billing" });
    const response = await api.patch(`/v1/projects/${id}`, { billing_mode: "COST_PLUS" });
    expect(response.status).toBe(200);
    expect(response.body.data.changes).toEqual({
      billing_mode: { from: "FIXED_PRICE", to: "COST_PLUS" },
    });
  });

  test("the billing mode is locked once the project has left draft (409 billing_mode_locked)", async () => {
    for (const path of [
      ["ACTIVE"],
      ["ACTIVE", "ON_HOLD"],
      ["CANCELLED"],
      ["ACTIVE", "COMPLETED"],
    ]) {
      const id = await create(api, "/v1/projects", { name: `Locked ${path.join(" ")}` });
      await walk(api, `/v1/projects/${id}`, path);
      const before = await api.get(`/v1/projects/${id}`);
      expectProblem(
        await api.patch(`/v1/projects/${id}`, { billing_mode: "TIME_AND_MATERIALS" }),
        409,
        "billing_mode_locked",
      );
      expectProblem(
        await api.patch(`/v1/projects/${id}`, { billing_mode: "COST_PLUS", name: "Renamed" }),
        409,
        "billing_mode_locked",
      );
      expect((await api.get(`/v1/projects/${id}`)).body).toEqual(before.body);
    }
  });

  test("a project created ACTIVE has its billing mode locked from the start", async () => {
    const id = await create(api, "/v1/projects", {
      name: "Born active",
      status: "ACTIVE",
      billing_mode: "COST_PLUS",
    });
    expectProblem(
      await api.patch(`/v1/projects/${id}`, { billing_mode: "FIXED_PRICE" }),
      409,
      "billing_mode_locked",
    );
  });

  test("the billing mode may change in the same PATCH that leaves draft", async () => {
    const id = await create(api, "/v1/projects", { name: "Leaving draft" });
    const response = await api.patch(`/v1/projects/${id}`, {
      billing_mode: "TIME_AND_MATERIALS",
      status: "ACTIVE",
    });
    expect(response.status).toBe(200);
    expect(response.body.data.record).toMatchObject({
      billing_mode: "TIME_AND_MATERIALS",
      status: "ACTIVE",
    });
  });

  test("sending the unchanged billing mode of a locked project is allowed", async () => {
    const id = await create(api, "/v1/projects", { name: "Same mode", status: "ACTIVE" });
    const response = await api.patch(`/v1/projects/${id}`, {
      billing_mode: "FIXED_PRICE",
      name: "Same mode, renamed",
    });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body.data.changes)).toEqual(["name"]);
  });
});

describe("estimates out of draft", () => {
  test("an estimate that is not DRAFT refuses any field but status (409 estimate_not_draft)", async () => {
    for (const path of [
      ["SENT"],
      ["SENT", "ACCEPTED"],
      ["SENT", "REJECTED"],
      ["SENT", "ACCEPTED", "CONVERTED"],
    ]) {
      const id = await create(api, "/v1/estimates", {
        title: `Sent ${path.join(" ")}`,
        amount: "100.00",
      });
      await walk(api, `/v1/estimates/${id}`, path);
      const before = await api.get(`/v1/estimates/${id}`);
      expectProblem(
        await api.patch(`/v1/estimates/${id}`, { amount: "90.00" }),
        409,
        "estimate_not_draft",
      );
      expectProblem(
        await api.patch(`/v1/estimates/${id}`, { title: "Renamed" }),
        409,
        "estimate_not_draft",
      );
      expect((await api.get(`/v1/estimates/${id}`)).body).toEqual(before.body);
    }
  });

  test("a status-only PATCH of a non-draft estimate is still allowed", async () => {
    const id = await create(api, "/v1/estimates", { title: "Moving on" });
    await walk(api, `/v1/estimates/${id}`, ["SENT"]);
    const response = await api.patch(`/v1/estimates/${id}`, { status: "ACCEPTED" });
    expect(response.status).toBe(200);
    expect(response.body.data.changes).toEqual({ status: { from: "SENT", to: "ACCEPTED" } });
  });

  test("status together with another field is refused while the stored estimate is not DRAFT", async () => {
    const id = await create(api, "/v1/estimates", { title: "Back to draft" });
    await walk(api, `/v1/estimates/${id}`, ["SENT"]);
    expectProblem(
      await api.patch(`/v1/estimates/${id}`, { status: "DRAFT", title: "Edited" }),
      409,
      "estimate_not_draft",
    );
    expect((await api.get(`/v1/estimates/${id}`)).body.data).toMatchObject({
      status: "SENT",
      title: "Back to draft",
    });
  });

  test("an estimate sent back to DRAFT may be edited again", async () => {
    const id = await create(api, "/v1/estimates", { title: "Revised" });
    await walk(api, `/v1/estimates/${id}`, ["SENT", "REJECTED", "DRAFT"]);
    const response = await api.patch(`/v1/estimates/${id}`, { amount: 12.5 });
    expect(response.status).toBe(200);
    expect(response.body.data.record.amount).toBe("12.50");
  });

  test("an estimate edit that breaks no draft rule but a transition rule is invalid_transition", async () => {
    const id = await create(api, "/v1/estimates", { title: "Skip ahead" });
    expectProblem(
      await api.patch(`/v1/estimates/${id}`, { status: "CONVERTED" }),
      409,
      "invalid_transition",
    );
  });
});

describe("references", () => {
  test("a reference must name a live record of the caller's company (422, every failing field at once)", async () => {
    const theirs = await create(other, "/v1/clients", { name: "Their client" });
    const gone = await create(api, "/v1/clients", { name: "Gone client" });
    expect((await api.delete(`/v1/clients/${gone}`)).status).toBe(200);
    for (const clientId of [theirs, gone, 999_999_999]) {
      const response = await api.post("/v1/projects", {
        name: "Bad refs",
        client_id: clientId,
        budget_estimate_id: 999_999_998,
      });
      expectProblem(response, 422, "validation_failed");
      expect(
        response.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]),
      ).toEqual([
        ["client_id", "unknown_reference"],
        ["budget_estimate_id", "unknown_reference"],
      ]);
    }
  });

  test("every kind of reference is checked: trades, categories, clients of estimates", async () => {
    const theirTrade = (await other.get("/v1/trades?limit=1")).body.data[0].id;
    const theirCategory = (await other.get("/v1/equipment-categories?limit=1")).body.data[0].id;
    const theirClient = await create(other, "/v1/clients", { name: "Not yours" });
    const cases: [string, Record<string, unknown>, string][] = [
      ["/v1/workers", { name: "W", trade_id: theirTrade }, "trade_id"],
      ["/v1/subcontractors", { name: "S", trade_id: theirTrade }, "trade_id"],
      ["/v1/equipment", { name: "E", category_id: theirCategory }, "category_id"],
      ["/v1/estimates", { title: "T", client_id: theirClient }, "client_id"],
    ];
    for (const [path, body, field] of cases) {
      const response = await api.post(path, body);
      expectProblem(response, 422, "validation_failed");
      expect(response.body.errors).toEqual([
        expect.objectContaining({ field, code: "unknown_reference" }),
      ]);
    }
    const ownTrade = (await api.get("/v1/trades?limit=1")).body.data[0].id;
    expect((await api.post("/v1/workers", { name: "W", trade_id: ownTrade })).status).toBe(201);
  });

  test("a PATCH may not point a reference at a deleted record", async () => {
    const project = await create(api, "/v1/projects", { name: "Repointed" });
    const client = await create(api, "/v1/clients", { name: "Soon gone" });
    await api.delete(`/v1/clients/${client}`);
    const response = await api.patch(`/v1/projects/${project}`, { client_id: client });
    expectProblem(response, 422, "validation_failed");
    expect(response.body.errors[0]).toMatchObject({
      field: "client_id",
      code: "unknown_reference",
    });
    expect((await api.get(`/v1/projects/${project}`)).body.data.client_id).toBeNull();
  });

  test("a project's budget estimate must be CONVERTED", async () => {
    const estimate = await create(api, "/v1/estimates", { title: "Budget", amount: "5000.00" });
    for (const next of [undefined, "SENT", "ACCEPTED"]) {
      if (next) await walk(api, `/v1/estimates/${estimate}`, [next]);
      const response = await api.post("/v1/projects", {
        name: "Budgeted",
        budget_estimate_id: estimate,
      });
      expectProblem(response, 422, "validation_failed");
      expect(response.body.errors).toEqual([
        expect.objectContaining({ field: "budget_estimate_id", code: "invalid_reference" }),
      ]);
    }
    await walk(api, `/v1/estimates/${estimate}`, ["CONVERTED"]);
    const id = await create(api, "/v1/projects", {
      name: "Budgeted",
      budget_estimate_id: estimate,
    });
    expect((await api.get(`/v1/projects/${id}`)).body.data.budget_estimate_id).toBe(estimate);
    const later = await create(api, "/v1/projects", { name: "Budgeted later" });
    expect(
      (await api.patch(`/v1/projects/${later}`, { budget_estimate_id: estimate })).status,
    ).toBe(200);
  });

  test("a reference may be cleared with null", async () => {
    const client = await create(api, "/v1/clients", { name: "Detachable" });
    const project = await create(api, "/v1/projects", { name: "Detached", client_id: client });
    const response = await api.patch(`/v1/projects/${project}`, { client_id: null });
    expect(response.status).toBe(200);
    expect(response.body.data.changes).toEqual({ client_id: { from: client, to: null } });
  });
});

describe("unique codes and serial numbers", () => {
  test("a project code is unique per company (409 unique_violation), on create and on PATCH", async () => {
    await create(api, "/v1/projects", { name: "First", code: "P-100" });
    const total = (await api.get("/v1/projects")).body.meta.total;
    const clash = await api.post("/v1/projects", { name: "Second", code: "P-100" });
    expectProblem(clash, 409, "unique_violation");
    expect(clash.body.errors).toEqual([expect.objectContaining({ field: "code" })]);
    expect((await api.get("/v1/projects")).body.meta.total).toBe(total);
    const second = await create(api, "/v1/projects", { name: "Second", code: "P-101" });
    expectProblem(
      await api.patch(`/v1/projects/${second}`, { code: "P-100" }),
      409,
      "unique_violation",
    );
    expect((await api.get(`/v1/projects/${second}`)).body.data.code).toBe("P-101");
  });

  test("an equipment serial number is unique per company", async () => {
    await create(api, "/v1/equipment", { name: "Crane", serial_number: "SN-1" });
    expectProblem(
      await api.post("/v1/equipment", { name: "Crane 2", serial_number: "SN-1" }),
      409,
      "unique_violation",
    );
    const id = await create(api, "/v1/equipment", { name: "Crane 2", serial_number: "SN-2" });
    expectProblem(
      await api.patch(`/v1/equipment/${id}`, { serial_number: "SN-1" }),
      409,
      "unique_violation",
    );
  });

  test("another company may use the same code and serial number", async () => {
    await create(api, "/v1/projects", { name: "Mine", code: "SHARED" });
    await create(api, "/v1/equipment", { name: "Mine", serial_number: "SHARED" });
    expect((await other.post("/v1/projects", { name: "Theirs", code: "SHARED" })).status).toBe(201);
    expect(
      (await other.post("/v1/equipment", { name: "Theirs", serial_number: "SHARED" })).status,
    ).toBe(201);
  });

  test("a deleted record's code may be used again", async () => {
    const old = await create(api, "/v1/projects", { name: "Old", code: "REUSE" });
    await api.delete(`/v1/projects/${old}`);
    expect((await api.post("/v1/projects", { name: "New", code: "REUSE" })).status).toBe(201);
    const oldMachine = await create(api, "/v1/equipment", { name: "Old", serial_number: "REUSE" });
    await api.delete(`/v1/equipment/${oldMachine}`);
    expect((await api.post("/v1/equipment", { name: "New", serial_number: "REUSE" })).status).toBe(
      201,
    );
  });

  test("keeping one's own code in a PATCH is not a clash, and many records may have no code", async () => {
    const id = await create(api, "/v1/projects", { name: "Keeper", code: "KEEP" });
    expect((await api.patch(`/v1/projects/${id}`, { code: "KEEP", name: "Keeper 2" })).status).toBe(
      200,
    );
    expect((await api.post("/v1/projects", { name: "No code 1" })).status).toBe(201);
    expect((await api.post("/v1/projects", { name: "No code 2", code: null })).status).toBe(201);
  });

  test("parallel creates with one code create exactly one record", async () => {
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api.post("/v1/projects", { name: `Race ${i}`, code: "RACE" }),
      ),
    );
    expect(responses.map((r) => r.status).sort()).toEqual([201, ...Array(7).fill(409)]);
    for (const refused of responses.filter((r) => r.status === 409))
      expectProblem(refused, 409, "unique_violation");
    expect((await api.get("/v1/projects?q=RACE")).body.meta.total).toBe(1);
  });
});

describe("conditional writes (If-Match)", () => {
  test(
    "a PATCH with the current ETag succeeds; with a stale one it is 412 precondition_failed " +
      "and changes nothing",
    async () => {
      const id = await create(api, "/v1/clients", { name: "Versioned" });
      const first = await api.get(`/v1/clients/${id}`);
      const etag = first.headers.get("etag")!;
      expect(
        (
          await api.patch(
            `/v1/clients/${id}`,
            { name: "Versioned 2" },
            { headers: { "if-match": etag } },
          )
        ).status,
      ).toBe(200);
      const stale = await api.patch(
        `/v1/clients/${id}`,
        { name: "Versioned 3" },
        { headers: { "if-match": etag } },
      );
      expectProblem(stale, 412, "precondition_failed");
      expect((await api.get(`/v1/clients/${id}`)).body.data.name).toBe("Versioned 2");
    },
  );

  test("a PATCH answers the ETag a GET would now send, so updates chain without reading again", async () => {
    const id = await create(api, "/v1/estimates", { title: "Chained", amount: "10" });
    let etag = (await api.get(`/v1/estimates/${id}`)).headers.get("etag")!;
    for (const amount of [11, "12.5", 13.25]) {
      const patched = await api.patch(
        `/v1/estimates/${id}`,
        { amount, valid_until: "2027-01-31" },
        { headers: { "if-match": etag } },
      );
      expect(patched.status).toBe(200);
      etag = patched.headers.get("etag")!;
      expect(etag).toBe((await api.get(`/v1/estimates/${id}`)).headers.get("etag")!);
    }
    const dryRun = await api.patch(`/v1/estimates/${id}?dry_run=1`, { amount: 99 });
    expect(dryRun.headers.get("etag")).toBeNull();
  });

  test("a DELETE with a stale ETag is 412 and keeps the record; with the current one it deletes", async () => {
    const id = await create(api, "/v1/clients", { name: "Guarded" });
    const etag = (await api.get(`/v1/clients/${id}`)).headers.get("etag")!;
    await api.patch(`/v1/clients/${id}`, { email: "guard@example.com" });
    expectProblem(
      await api.delete(`/v1/clients/${id}`, { headers: { "if-match": etag } }),
      412,
      "precondition_failed",
    );
    const current = await api.get(`/v1/clients/${id}`);
    expect(current.status).toBe(200);
    expect(
      (
        await api.delete(`/v1/clients/${id}`, {
          headers: { "if-match": current.headers.get("etag")! },
        })
      ).status,
    ).toBe(200);
    expect((await api.get(`/v1/clients/${id}`)).status).toBe(404);
  });

  test("If-Match: * matches any live record; an unknown record is still 404", async () => {
    const id = await create(api, "/v1/workers", { name: "Anyone" });
    expect(
      (await api.patch(`/v1/workers/${id}`, { phone: "555" }, { headers: { "if-match": "*" } }))
        .status,
    ).toBe(200);
    expectProblem(
      await api.patch("/v1/workers/999999999", { phone: "555" }, { headers: { "if-match": "*" } }),
      404,
      "not_found",
    );
  });

  test("If-Match is checked in a dry-run too", async () => {
    const id = await create(api, "/v1/workers", { name: "Dry guard" });
    const response = await api.patch(
      `/v1/workers/${id}`,
      { phone: "1" },
      { headers: { "if-match": '"stale"', "x-dry-run": "1" } },
    );
    expectProblem(response, 412, "precondition_failed");
  });

  test("a PATCH whose If-Match lists the current ETag among others succeeds", async () => {
    const id = await create(api, "/v1/workers", { name: "Listed" });
    const etag = (await api.get(`/v1/workers/${id}`)).headers.get("etag")!;
    const response = await api.patch(
      `/v1/workers/${id}`,
      { phone: "2" },
      { headers: { "if-match": `"other", ${etag}` } },
    );
    expect(response.status).toBe(200);
  });
});
