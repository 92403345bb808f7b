// Deletes (docs/concepts.md): always soft, refused by protected history, cascading unbilled
// rentals, and listing what a delete removes and what it keeps.
import { beforeAll, describe, expect, test } from "bun:test";
import { create, type Api } from "@erp/testing/api";
import { newCompany } from "@erp/testing/company";
import { expectProblem, snapshot, storedRow, walk } from "@erp/testing/rules";
import { useServer } from "@erp/testing/suite";

const suite = useServer();
let api: Api;

beforeAll(async () => {
  api = suite.api.as((await newCompany()).token);
});

async function convertedEstimate(title: string): Promise<number> {
  const id = await create(api, "/v1/estimates", { title, amount: "1000.00" });
  await walk(api, `/v1/estimates/${id}`, ["SENT", "ACCEPTED", "CONVERTED"]);
  return id;
}

async function rental(equipment: number, project: number, billed = false): Promise<number> {
  return create(api, `/v1/equipment/${equipment}/rentals`, {
    project_id: project,
    start_date: "2026-03-01",
    billed,
  });
}

describe("soft deletes", () => {
  test(
    "a delete is soft: 200 with mode soft, then the record is gone from the API but kept in " +
      "the database",
    async () => {
      const id = await create(api, "/v1/workers", { name: "Leaving" });
      const total = (await api.get("/v1/workers")).body.meta.total;
      const response = await api.delete(`/v1/workers/${id}`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        data: {
          id,
          deleted: true,
          dry_run: false,
          mode: "soft",
          would_delete: [{ resource: "workers", id }],
          would_keep: [],
        },
      });
      expectProblem(await api.get(`/v1/workers/${id}`), 404, "not_found");
      const list = await api.get("/v1/workers?limit=100");
      expect(list.body.meta.total).toBe(total - 1);
      expect(list.body.data.map((w: { id: number }) => w.id)).not.toContain(id);
      const row = await storedRow("workers", id);
      expect(row?.name).toBe("Leaving");
      expect(row?.deleted_at).not.toBeNull();
    },
  );

  test("deleting a deleted record is 404, and so is patching it", async () => {
    const id = await create(api, "/v1/subcontractors", { name: "Twice" });
    expect((await api.delete(`/v1/subcontractors/${id}`)).status).toBe(200);
    expectProblem(await api.delete(`/v1/subcontractors/${id}`), 404, "not_found");
    expectProblem(
      await api.delete(`/v1/subcontractors/${id}`, { headers: { "x-dry-run": "1" } }),
      404,
      "not_found",
    );
    expectProblem(await api.patch(`/v1/subcontractors/${id}`, { name: "Back" }), 404, "not_found");
  });

  test("another company's record cannot be deleted: 404, and it stays", async () => {
    const theirs = suite.api.as((await newCompany()).token);
    const id = await create(theirs, "/v1/clients", { name: "Not yours" });
    expectProblem(await api.delete(`/v1/clients/${id}`), 404, "not_found");
    expectProblem(await api.delete(`/v1/clients/${id}?dry_run=1`), 404, "not_found");
    expect((await theirs.get(`/v1/clients/${id}`)).status).toBe(200);
  });

  test("a deleted record is no longer a valid reference", async () => {
    const client = await create(api, "/v1/clients", { name: "Former client" });
    await api.delete(`/v1/clients/${client}`);
    const response = await api.post("/v1/estimates", {
      title: "For a former client",
      client_id: client,
    });
    expectProblem(response, 422, "validation_failed");
    expect(response.body.errors[0]).toMatchObject({
      field: "client_id",
      code: "unknown_reference",
    });
  });
});

describe("protected history blocks a delete", () => {
  test(
    "a converted estimate backing a live project's budget cannot be deleted (409 " +
      "delete_blocked naming the project)",
    async () => {
      const estimate = await convertedEstimate("Backing");
      const project = await create(api, "/v1/projects", {
        name: "Backed",
        budget_estimate_id: estimate,
      });
      const before = await snapshot(api);
      for (const headers of [{}, { "x-dry-run": "1" }] as Record<string, string>[]) {
        const response = await api.delete(`/v1/estimates/${estimate}`, { headers });
        expectProblem(response, 409, "delete_blocked");
        expect(response.body.blockers).toEqual([{ resource: "projects", id: project }]);
        expect(response.body.detail).toContain(`projects ${project}`);
      }
      expect(await snapshot(api)).toEqual(before);
    },
  );

  test("once the backed project is deleted, the converted estimate may be deleted", async () => {
    const estimate = await convertedEstimate("Freed");
    const project = await create(api, "/v1/projects", {
      name: "Soon gone",
      budget_estimate_id: estimate,
    });
    expect((await api.delete(`/v1/projects/${project}`)).status).toBe(200);
    const response = await api.delete(`/v1/estimates/${estimate}`);
    expect(response.status).toBe(200);
    expect(response.body.data.would_delete).toEqual([{ resource: "estimates", id: estimate }]);
  });

  test("a converted estimate no project names may be deleted", async () => {
    const estimate = await convertedEstimate("Unused");
    expect((await api.delete(`/v1/estimates/${estimate}`)).status).toBe(200);
  });

  test("a billed rental blocks deleting its equipment", async () => {
    const project = await create(api, "/v1/projects", { name: "Site A" });
    const machine = await create(api, "/v1/equipment", { name: "Loader" });
    const billed = await rental(machine, project, true);
    const open = await rental(machine, project);
    const before = await snapshot(api);
    const response = await api.delete(`/v1/equipment/${machine}`);
    expectProblem(response, 409, "delete_blocked");
    expect(response.body.blockers).toEqual([{ resource: "rentals", id: billed }]);
    expect(response.body.blockers).not.toContainEqual({ resource: "rentals", id: open });
    expect(await snapshot(api)).toEqual(before);
  });

  test("a billed rental blocks deleting its project", async () => {
    const project = await create(api, "/v1/projects", { name: "Site B" });
    const machine = await create(api, "/v1/equipment", { name: "Crane" });
    const billed = await rental(machine, project);
    expect(
      (await api.patch(`/v1/equipment/${machine}/rentals/${billed}`, { billed: true })).status,
    ).toBe(200);
    const response = await api.delete(`/v1/projects/${project}`);
    expectProblem(response, 409, "delete_blocked");
    expect(response.body.blockers).toEqual([{ resource: "rentals", id: billed }]);
    expect((await api.get(`/v1/projects/${project}`)).status).toBe(200);
  });

  test("a blocked delete lists every blocker", async () => {
    const estimate = await convertedEstimate("Twice backing");
    const first = await create(api, "/v1/projects", {
      name: "First backed",
      budget_estimate_id: estimate,
    });
    const second = await create(api, "/v1/projects", {
      name: "Second backed",
      budget_estimate_id: estimate,
    });
    const response = await api.delete(`/v1/estimates/${estimate}`);
    expectProblem(response, 409, "delete_blocked");
    expect(response.body.blockers).toEqual([
      { resource: "projects", id: first },
      { resource: "projects", id: second },
    ]);
  });
});

describe("what a delete removes and what it keeps", () => {
  test("deleting equipment deletes its unbilled rentals with it (would_delete lists them)", async () => {
    const project = await create(api, "/v1/projects", { name: "Site C" });
    const machine = await create(api, "/v1/equipment", { name: "Generator" });
    const first = await rental(machine, project);
    const second = await rental(machine, project);
    const expected = [
      { resource: "equipment", id: machine },
      { resource: "rentals", id: first },
      { resource: "rentals", id: second },
    ];
    const preview = await api.delete(`/v1/equipment/${machine}?dry_run=1`);
    expect(preview.body.data).toEqual({
      id: machine,
      deleted: false,
      dry_run: true,
      mode: "soft",
      would_delete: expected,
      would_keep: [],
    });
    const response = await api.delete(`/v1/equipment/${machine}`);
    expect(response.body.data).toEqual({
      id: machine,
      deleted: true,
      dry_run: false,
      mode: "soft",
      would_delete: expected,
      would_keep: [],
    });
    expect((await storedRow("equipment_rentals", first))?.deleted_at).not.toBeNull();
    expect((await storedRow("equipment_rentals", second))?.deleted_at).not.toBeNull();
    expectProblem(await api.get(`/v1/equipment/${machine}/rentals`), 404, "not_found");
    // The project no longer has rentals, so nothing holds it.
    expect((await api.delete(`/v1/projects/${project}?dry_run=1`)).body.data.would_delete).toEqual([
      { resource: "projects", id: project },
    ]);
  });

  test("deleting a project deletes its unbilled rentals, which leave the equipment's rental list", async () => {
    const project = await create(api, "/v1/projects", { name: "Site D" });
    const elsewhere = await create(api, "/v1/projects", { name: "Site E" });
    const machine = await create(api, "/v1/equipment", { name: "Compressor" });
    const mine = await rental(machine, project);
    const theirs = await rental(machine, elsewhere);
    const response = await api.delete(`/v1/projects/${project}`);
    expect(response.status).toBe(200);
    expect(response.body.data.would_delete).toEqual([
      { resource: "projects", id: project },
      { resource: "rentals", id: mine },
    ]);
    const left = await api.get(`/v1/equipment/${machine}/rentals`);
    expect(left.body.data.map((r: { id: number }) => r.id)).toEqual([theirs]);
    expect(left.body.meta.total).toBe(1);
  });

  test(
    "deleting a client keeps its live projects and estimates (would_keep lists them) and " +
      "they keep pointing at it",
    async () => {
      const client = await create(api, "/v1/clients", { name: "Keeper client" });
      const project = await create(api, "/v1/projects", {
        name: "Kept project",
        client_id: client,
      });
      const gone = await create(api, "/v1/projects", { name: "Already gone", client_id: client });
      await api.delete(`/v1/projects/${gone}`);
      const estimate = await create(api, "/v1/estimates", {
        title: "Kept estimate",
        client_id: client,
      });
      const expectedKeep = [
        { resource: "projects", id: project },
        { resource: "estimates", id: estimate },
      ];
      const preview = await api.delete(`/v1/clients/${client}`, { headers: { "x-dry-run": "1" } });
      expect(preview.body.data).toEqual({
        id: client,
        deleted: false,
        dry_run: true,
        mode: "soft",
        would_delete: [{ resource: "clients", id: client }],
        would_keep: expectedKeep,
      });
      const response = await api.delete(`/v1/clients/${client}`);
      expect(response.body.data).toMatchObject({ deleted: true, would_keep: expectedKeep });
      expect((await api.get(`/v1/projects/${project}`)).body.data.client_id).toBe(client);
      expect((await api.get(`/v1/estimates/${estimate}`)).body.data.client_id).toBe(client);
    },
  );

  test("a kept project may still be edited after its client is deleted", async () => {
    const client = await create(api, "/v1/clients", { name: "Vanishing client" });
    const project = await create(api, "/v1/projects", { name: "Orphan", client_id: client });
    await api.delete(`/v1/clients/${client}`);
    expect((await api.patch(`/v1/projects/${project}`, { name: "Orphan renamed" })).status).toBe(
      200,
    );
  });

  test("deleting a project keeps nothing that names it and frees nothing it names", async () => {
    const estimate = await convertedEstimate("Named");
    const client = await create(api, "/v1/clients", { name: "Named client" });
    const project = await create(api, "/v1/projects", {
      name: "Namer",
      client_id: client,
      budget_estimate_id: estimate,
    });
    const response = await api.delete(`/v1/projects/${project}`);
    expect(response.body.data.would_keep).toEqual([]);
    expect((await api.get(`/v1/estimates/${estimate}`)).status).toBe(200);
    expect((await api.get(`/v1/clients/${client}`)).status).toBe(200);
  });
});

describe("deletes under concurrency", () => {
  const ROUNDS = 5;

  test("a rental billed while its project is being deleted is never deleted with it", async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const project = await create(api, "/v1/projects", { name: `Race site ${round}` });
      const pairs = await Promise.all(
        Array.from({ length: 4 }, async (_, i) => {
          const machine = await create(api, "/v1/equipment", { name: `Race ${round}.${i}` });
          return { machine, rental: await rental(machine, project) };
        }),
      );
      const [deleted, ...billings] = await Promise.all([
        api.delete(`/v1/projects/${project}`),
        ...pairs.map(({ machine, rental: id }) =>
          api.patch(`/v1/equipment/${machine}/rentals/${id}`, { billed: true }),
        ),
      ]);
      expect([200, 409]).toContain(deleted.status);
      for (const billing of billings) expect([200, 404]).toContain(billing.status);
      const projectGone = (await storedRow("projects", project))?.deleted_at !== null;
      for (const { rental: id } of pairs) {
        const row = await storedRow("equipment_rentals", id);
        if (row?.billed)
          expect({ round, id, rentalDeleted: row.deleted_at !== null, projectGone }).toEqual({
            round,
            id,
            rentalDeleted: false,
            projectGone: false,
          });
      }
    }
  });

  test("a rental created while its project is being deleted never points at the deleted project", async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const project = await create(api, "/v1/projects", { name: `Race site ${round}` });
      const machines = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          create(api, "/v1/equipment", { name: `Race ${round}.${i}` }),
        ),
      );
      const [, ...creates] = await Promise.all([
        api.delete(`/v1/projects/${project}`),
        ...machines.map((machine) =>
          api.post(`/v1/equipment/${machine}/rentals`, {
            project_id: project,
            start_date: "2026-03-01",
          }),
        ),
      ]);
      if ((await storedRow("projects", project))?.deleted_at === null) continue;
      for (const response of creates.filter((r) => r.status === 201)) {
        expect({
          round,
          rentalDeleted:
            (await storedRow("equipment_rentals", response.body.data.id))?.deleted_at !== null,
        }).toEqual({ round, rentalDeleted: true });
      }
      for (const response of creates.filter((r) => r.status !== 201))
        expectProblem(response, 422, "validation_failed");
    }
  });

  test(
    "a project created while its budget estimate is being deleted either blocks the delete " +
      "or is refused",
    async () => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const estimate = await convertedEstimate(`Race ${round}`);
        const [deleted, ...creates] = await Promise.all([
          api.delete(`/v1/estimates/${estimate}`),
          ...Array.from({ length: 4 }, (_, i) =>
            api.post("/v1/projects", { name: `Race ${round}.${i}`, budget_estimate_id: estimate }),
          ),
        ]);
        for (const response of creates) expect([201, 422]).toContain(response.status);
        const created = creates.filter((r) => r.status === 201).length;
        expect({ round, deleted: deleted.status === 200, created: created > 0 }).toEqual({
          round,
          deleted: created === 0,
          created: created > 0,
        });
      }
    },
  );

  test("deletes, billing and rentals racing over shared records never fail with a server error", async () => {
    const projects = await Promise.all(
      [0, 1].map((i) => create(api, "/v1/projects", { name: `Crossed ${i}` })),
    );
    const machines = await Promise.all(
      [0, 1].map((i) => create(api, "/v1/equipment", { name: `Crossed ${i}` })),
    );
    const rentals: { machine: number; id: number }[] = [];
    for (const machine of machines)
      for (const project of projects) rentals.push({ machine, id: await rental(machine, project) });
    const responses = await Promise.all([
      ...rentals.map(({ machine, id }) =>
        api.patch(`/v1/equipment/${machine}/rentals/${id}`, { billed: true }),
      ),
      ...machines.map((machine) => api.delete(`/v1/equipment/${machine}`)),
      ...projects.map((project) => api.delete(`/v1/projects/${project}`)),
      ...machines.flatMap((machine) =>
        projects.map((project) =>
          api.post(`/v1/equipment/${machine}/rentals`, {
            project_id: project,
            start_date: "2026-03-02",
          }),
        ),
      ),
    ]);
    expect(responses.filter((r) => r.status >= 500).map((r) => r.text)).toEqual([]);
    for (const { id } of rentals) {
      const row = await storedRow("equipment_rentals", id);
      if (row?.billed) expect(row.deleted_at).toBeNull();
    }
  });
});
