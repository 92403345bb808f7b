// Equipment rentals (docs/concepts.md): a sub-collection of one piece of equipment, rented to a
// live project of the company; `billed: true` makes a rental history that never changes.
import { beforeAll, describe, expect, test } from "bun:test";
import { create, type Api } from "@erp/testing/api";
import { newCompany } from "@erp/testing/company";
import { expectProblem, nextAutoIncrement, snapshot } from "@erp/testing/rules";
import { useServer } from "@erp/testing/suite";

const suite = useServer();
let api: Api;
let other: Api;
let project: number;

beforeAll(async () => {
  api = suite.api.as((await newCompany()).token);
  other = suite.api.as((await newCompany()).token);
  project = await create(api, "/v1/projects", { name: "Rental site", status: "ACTIVE" });
});

const machine = (name = "Excavator", extra: Record<string, unknown> = {}): Promise<number> =>
  create(api, "/v1/equipment", { name, daily_rate: "350.00", ...extra });

describe("renting equipment", () => {
  test("a rental is created under its equipment: 201, Location, and listed with its equipment_id", async () => {
    const id = await machine();
    const response = await api.post(`/v1/equipment/${id}/rentals`, {
      project_id: project,
      start_date: "2026-04-01",
      end_date: "2026-04-10",
      daily_rate: 300,
    });
    expect(response.status).toBe(201);
    const rental = response.body.data.id;
    expect(response.body.data).toEqual({ id: rental, created: true, dry_run: false });
    expect(response.headers.get("location")).toBe(`/v1/equipment/${id}/rentals/${rental}`);
    const list = await api.get(`/v1/equipment/${id}/rentals`);
    expect(list.status).toBe(200);
    expect(list.body.meta).toEqual({ total: 1, limit: 50, offset: 0 });
    expect(list.body.data[0]).toMatchObject({
      id: rental,
      equipment_id: id,
      project_id: project,
      start_date: "2026-04-01",
      end_date: "2026-04-10",
      daily_rate: "300.00",
      billed: false,
    });
  });

  test("one rental is readable under its own equipment, with an ETag that If-Match accepts", async () => {
    const id = await machine();
    const elsewhere = await machine("Elsewhere");
    const rental = await create(api, `/v1/equipment/${id}/rentals`, {
      project_id: project,
      start_date: "2026-04-01",
    });
    const read = await api.get(`/v1/equipment/${id}/rentals/${rental}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ id: rental, equipment_id: id, billed: false });
    expect((await api.get(`/v1/equipment/${elsewhere}/rentals/${rental}`)).status).toBe(404);
    expect((await other.get(`/v1/equipment/${id}/rentals/${rental}`)).status).toBe(404);
    const stale = await api.patch(
      `/v1/equipment/${id}/rentals/${rental}`,
      { end_date: "2026-04-02" },
      { headers: { "if-match": '"stale"' } },
    );
    expectProblem(stale, 412, "precondition_failed");
    const fresh = await api.patch(
      `/v1/equipment/${id}/rentals/${rental}`,
      { end_date: "2026-04-02" },
      { headers: { "if-match": read.headers.get("etag")! } },
    );
    expect(fresh.status).toBe(200);
  });

  test("each piece of equipment lists only its own rentals", async () => {
    const first = await machine("First");
    const second = await machine("Second");
    const mine = await create(api, `/v1/equipment/${first}/rentals`, {
      project_id: project,
      start_date: "2026-04-01",
    });
    await create(api, `/v1/equipment/${second}/rentals`, {
      project_id: project,
      start_date: "2026-04-01",
    });
    const list = await api.get(`/v1/equipment/${first}/rentals`);
    expect(list.body.data.map((r: { id: number }) => r.id)).toEqual([mine]);
  });

  test("project_id and start_date are required, and every failing field is listed at once", async () => {
    const id = await machine();
    const response = await api.post(`/v1/equipment/${id}/rentals`, { daily_rate: "1.234" });
    expectProblem(response, 422, "validation_failed");
    expect(response.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      "daily_rate",
      "project_id",
      "start_date",
    ]);
  });

  test("the end date may not be before the start date", async () => {
    const id = await machine();
    const response = await api.post(`/v1/equipment/${id}/rentals`, {
      project_id: project,
      start_date: "2026-04-10",
      end_date: "2026-04-01",
    });
    expectProblem(response, 422, "validation_failed");
    expect(response.body.errors).toEqual([
      expect.objectContaining({ field: "end_date", code: "date_order" }),
    ]);
  });

  test("a rental's project must be a live project of the company", async () => {
    const id = await machine();
    const theirs = await create(other, "/v1/projects", { name: "Their site" });
    const gone = await create(api, "/v1/projects", { name: "Closed site" });
    await api.delete(`/v1/projects/${gone}`);
    for (const projectId of [theirs, gone, 999_999_999]) {
      const response = await api.post(`/v1/equipment/${id}/rentals`, {
        project_id: projectId,
        start_date: "2026-04-01",
      });
      expectProblem(response, 422, "validation_failed");
      expect(response.body.errors).toEqual([
        expect.objectContaining({ field: "project_id", code: "unknown_reference" }),
      ]);
    }
    expect((await api.get(`/v1/equipment/${id}/rentals`)).body.meta.total).toBe(0);
  });

  test("a rental may not be moved to a deleted project", async () => {
    const id = await machine();
    const rental = await create(api, `/v1/equipment/${id}/rentals`, {
      project_id: project,
      start_date: "2026-04-01",
    });
    const gone = await create(api, "/v1/projects", { name: "Gone site" });
    await api.delete(`/v1/projects/${gone}`);
    const before = (await api.get(`/v1/equipment/${id}/rentals/${rental}`)).body.data;
    const response = await api.patch(`/v1/equipment/${id}/rentals/${rental}`, {
      project_id: gone,
    });
    expectProblem(response, 422, "validation_failed");
    expect(response.body.errors).toEqual([
      expect.objectContaining({ field: "project_id", code: "unknown_reference" }),
    ]);
    // The rental stays on its project, unchanged.
    const after = (await api.get(`/v1/equipment/${id}/rentals/${rental}`)).body.data;
    expect(after).toEqual(before);
    expect(after.project_id).toBe(project);
  });

  test("RETIRED equipment takes no new rentals (422 naming equipment_id), and nothing is written", async () => {
    const id = await machine("Old dozer", { status: "RETIRED" });
    const before = await nextAutoIncrement("equipment_rentals");
    for (const headers of [{}, { "x-dry-run": "1" }] as Record<string, string>[]) {
      const response = await api.post(
        `/v1/equipment/${id}/rentals`,
        { project_id: project, start_date: "2026-04-01" },
        { headers },
      );
      expectProblem(response, 422, "validation_failed");
      expect(response.body.errors).toEqual([
        expect.objectContaining({ field: "equipment_id", code: "invalid_reference" }),
      ]);
    }
    expect(await nextAutoIncrement("equipment_rentals")).toBe(before);
    expect((await api.get(`/v1/equipment/${id}/rentals`)).body.meta.total).toBe(0);
  });

  test("a rental of equipment retired later may still be billed", async () => {
    const id = await machine("Retiring");
    const rental = await create(api, `/v1/equipment/${id}/rentals`, {
      project_id: project,
      start_date: "2026-04-01",
    });
    expect((await api.patch(`/v1/equipment/${id}`, { status: "RETIRED" })).status).toBe(200);
    expect(
      (
        await api.patch(`/v1/equipment/${id}/rentals/${rental}`, {
          end_date: "2026-04-30",
          billed: true,
        })
      ).status,
    ).toBe(200);
  });

  test("equipment in use or in maintenance may be rented", async () => {
    for (const status of ["IN_USE", "MAINTENANCE"]) {
      const id = await machine(`Busy ${status}`, { status });
      expect(
        (
          await api.post(`/v1/equipment/${id}/rentals`, {
            project_id: project,
            start_date: "2026-04-01",
          })
        ).status,
      ).toBe(201);
    }
  });

  test("rentals of deleted, unknown or another company's equipment are 404", async () => {
    const gone = await machine("Sold");
    await api.delete(`/v1/equipment/${gone}`);
    const theirs = await create(other, "/v1/equipment", { name: "Their loader" });
    for (const id of [gone, theirs, 999_999_999]) {
      expectProblem(await api.get(`/v1/equipment/${id}/rentals`), 404, "not_found");
      expectProblem(
        await api.post(`/v1/equipment/${id}/rentals`, {
          project_id: project,
          start_date: "2026-04-01",
        }),
        404,
        "not_found",
      );
    }
  });

  test("a rental is reached only through its own equipment", async () => {
    const owner = await machine("Owner");
    const stranger = await machine("Stranger");
    const rental = await create(api, `/v1/equipment/${owner}/rentals`, {
      project_id: project,
      start_date: "2026-04-01",
    });
    expectProblem(
      await api.patch(`/v1/equipment/${stranger}/rentals/${rental}`, { end_date: "2026-05-01" }),
      404,
      "not_found",
    );
    const theirMachine = await create(other, "/v1/equipment", { name: "Theirs" });
    expectProblem(
      await other.patch(`/v1/equipment/${theirMachine}/rentals/${rental}`, {
        end_date: "2026-05-01",
      }),
      404,
      "not_found",
    );
    expect((await api.get(`/v1/equipment/${owner}/rentals`)).body.data[0].end_date).toBeNull();
  });

  test("rentals need the equipment add-on (402 feature_off)", async () => {
    const id = await machine("Gated");
    const plain = suite.api.as((await newCompany({ addons: ["api"] })).token);
    expectProblem(await plain.get(`/v1/equipment/${id}/rentals`), 402, "feature_off");
    expectProblem(
      await plain.post(`/v1/equipment/${id}/rentals`, {
        project_id: project,
        start_date: "2026-04-01",
      }),
      402,
      "feature_off",
    );
  });

  test("a dry-run rental create answers like a create and writes nothing", async () => {
    const id = await machine("Preview");
    const before = await snapshot(api);
    const next = await nextAutoIncrement("equipment_rentals");
    const response = await api.post(`/v1/equipment/${id}/rentals?dry_run=1`, {
      project_id: project,
      start_date: "2026-04-01",
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { id: null, created: false, dry_run: true } });
    expect(response.headers.get("location")).toBeNull();
    expect(await snapshot(api)).toEqual(before);
    expect(await nextAutoIncrement("equipment_rentals")).toBe(next);
    expect(
      await create(api, `/v1/equipment/${id}/rentals`, {
        project_id: project,
        start_date: "2026-04-01",
      }),
    ).toBe(next);
  });
});

describe("billing", () => {
  test("billed: true marks a rental billed", async () => {
    const id = await machine("To bill");
    const rental = await create(api, `/v1/equipment/${id}/rentals`, {
      project_id: project,
      start_date: "2026-04-01",
    });
    const response = await api.patch(`/v1/equipment/${id}/rentals/${rental}`, {
      billed: true,
      end_date: "2026-04-05",
    });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({
      id: rental,
      updated: true,
      dry_run: false,
      changes: { billed: { from: false, to: true }, end_date: { from: null, to: "2026-04-05" } },
      record: { billed: true, end_date: "2026-04-05" },
    });
  });

  test(
    "a billed rental is frozen: any further change is 409 rental_billed, in a dry-run too, " +
      "and nothing changes",
    async () => {
      const id = await machine("Billed");
      const rental = await create(api, `/v1/equipment/${id}/rentals`, {
        project_id: project,
        start_date: "2026-04-01",
        daily_rate: "100.00",
      });
      await api.patch(`/v1/equipment/${id}/rentals/${rental}`, { billed: true });
      const before = await api.get(`/v1/equipment/${id}/rentals`);
      const other = await create(api, "/v1/projects", { name: "Other site" });
      for (const body of [
        { billed: false },
        { daily_rate: "90.00" },
        { end_date: "2026-05-01" },
        { project_id: other },
      ]) {
        expectProblem(
          await api.patch(`/v1/equipment/${id}/rentals/${rental}`, body),
          409,
          "rental_billed",
        );
        expectProblem(
          await api.patch(`/v1/equipment/${id}/rentals/${rental}`, body, {
            headers: { "x-dry-run": "1" },
          }),
          409,
          "rental_billed",
        );
      }
      expect(await api.get(`/v1/equipment/${id}/rentals`)).toMatchObject({
        status: 200,
        body: before.body,
      });
    },
  );

  test("an unbilled rental may be changed freely before billing", async () => {
    const id = await machine("Open");
    const rental = await create(api, `/v1/equipment/${id}/rentals`, {
      project_id: project,
      start_date: "2026-04-01",
    });
    const site = await create(api, "/v1/projects", { name: "New site" });
    const response = await api.patch(`/v1/equipment/${id}/rentals/${rental}`, {
      project_id: site,
      daily_rate: 120,
      end_date: "2026-04-02",
    });
    expect(response.status).toBe(200);
    expect(response.body.data.record).toMatchObject({
      project_id: site,
      daily_rate: "120.00",
      end_date: "2026-04-02",
      billed: false,
    });
  });

  test("a rental may be recorded as billed from the start, and is frozen at once", async () => {
    const id = await machine("Billed at once");
    const rental = await create(api, `/v1/equipment/${id}/rentals`, {
      project_id: project,
      start_date: "2026-04-01",
      billed: true,
    });
    expectProblem(
      await api.patch(`/v1/equipment/${id}/rentals/${rental}`, { end_date: "2026-04-03" }),
      409,
      "rental_billed",
    );
  });

  test("a billed rental blocks deleting its equipment and its project", async () => {
    const id = await machine("History");
    const site = await create(api, "/v1/projects", { name: "History site" });
    const rental = await create(api, `/v1/equipment/${id}/rentals`, {
      project_id: site,
      start_date: "2026-04-01",
      billed: true,
    });
    for (const path of [`/v1/equipment/${id}`, `/v1/projects/${site}`]) {
      const response = await api.delete(path);
      expectProblem(response, 409, "delete_blocked");
      expect(response.body.blockers).toEqual([{ resource: "rentals", id: rental }]);
    }
  });
});
