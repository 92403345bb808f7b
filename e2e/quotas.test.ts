// Plan quotas (docs/limits.md): projects and workers beyond the plan are 402 quota_exceeded;
// live records count, and the limit holds exactly under parallel creates, across processes.
import { describe, expect, test } from "bun:test";
import { Api, create } from "@erp/testing/api";
import { newCompany } from "@erp/testing/company";
import { expectProblem, nextAutoIncrement } from "@erp/testing/rules";
import { startServer } from "@erp/testing/server";
import { useServer } from "@erp/testing/suite";

const suite = useServer();

async function company(overrides: Parameters<typeof newCompany>[0]): Promise<Api> {
  return suite.api.as((await newCompany(overrides)).token);
}

const total = async (api: Api, resource: string): Promise<number> =>
  (await api.get(`/v1/${resource}`)).body.meta.total;

async function fill(api: Api, resource: string, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i += 1)
    ids.push(await create(api, `/v1/${resource}`, { name: `${resource} ${i}` }));
  return ids;
}

describe("plan quotas", () => {
  test("the free plan allows 3 projects; the 4th is 402 quota_exceeded and writes nothing", async () => {
    const api = await company({ plan: "free" });
    await fill(api, "projects", 3);
    const next = await nextAutoIncrement("projects");
    const response = await api.post("/v1/projects", { name: "One too many" });
    expectProblem(response, 402, "quota_exceeded");
    expect(response.body.quota).toEqual({ resource: "projects", used: 3, limit: 3 });
    expect(await total(api, "projects")).toBe(3);
    expect(await nextAutoIncrement("projects")).toBe(next);
  });

  test("the free plan allows 5 workers; the 6th is 402 quota_exceeded", async () => {
    const api = await company({ plan: "free" });
    await fill(api, "workers", 5);
    const response = await api.post("/v1/workers", { name: "One too many" });
    expectProblem(response, 402, "quota_exceeded");
    expect(response.body.quota).toEqual({ resource: "workers", used: 5, limit: 5 });
    expect(await total(api, "workers")).toBe(5);
  });

  test("a dry-run create at the limit is refused the same way", async () => {
    const api = await company({ plan: "enterprise", quotas: { workers: 1 } });
    await fill(api, "workers", 1);
    const real = await api.post("/v1/workers", { name: "Extra" });
    const dry = await api.post("/v1/workers", { name: "Extra" }, { headers: { "x-dry-run": "1" } });
    expectProblem(dry, 402, "quota_exceeded");
    expect({ ...dry.body, request_id: null }).toEqual({ ...real.body, request_id: null });
  });

  test("dry-run creates below the limit consume nothing of the quota", async () => {
    const api = await company({ plan: "enterprise", quotas: { projects: 1 } });
    for (let i = 0; i < 3; i += 1)
      expect((await api.post("/v1/projects?dry_run=1", { name: "Preview" })).status).toBe(200);
    expect((await api.post("/v1/projects", { name: "The one" })).status).toBe(201);
  });

  test("live records count: deleting a project frees its place", async () => {
    const api = await company({ plan: "free" });
    const [first] = await fill(api, "projects", 3);
    expectProblem(await api.post("/v1/projects", { name: "Blocked" }), 402, "quota_exceeded");
    expect((await api.delete(`/v1/projects/${first}?dry_run=1`)).status).toBe(200);
    expectProblem(await api.post("/v1/projects", { name: "Still blocked" }), 402, "quota_exceeded");
    expect((await api.delete(`/v1/projects/${first}`)).status).toBe(200);
    expect((await api.post("/v1/projects", { name: "Replacement" })).status).toBe(201);
    expectProblem(await api.post("/v1/projects", { name: "Full again" }), 402, "quota_exceeded");
  });

  test("admin overrides replace the plan's quota", async () => {
    const api = await company({ plan: "free", quotas: { projects: 1, workers: 7 } });
    await fill(api, "projects", 1);
    expectProblem(
      await api.post("/v1/projects", { name: "Over the override" }),
      402,
      "quota_exceeded",
    );
    await fill(api, "workers", 7);
    expectProblem(await api.post("/v1/workers", { name: "Eighth" }), 402, "quota_exceeded");
  });

  test("the enterprise plan has no quota", async () => {
    const api = await company({ plan: "enterprise" });
    await fill(api, "projects", 5);
    await fill(api, "workers", 7);
    expect([await total(api, "projects"), await total(api, "workers")]).toEqual([5, 7]);
  });

  test("a quota is per company: another company's records do not count", async () => {
    const full = await company({ plan: "enterprise", quotas: { projects: 2 } });
    const fresh = await company({ plan: "enterprise", quotas: { projects: 2 } });
    await fill(full, "projects", 2);
    expect((await fresh.post("/v1/projects", { name: "Mine" })).status).toBe(201);
  });

  test(
    "a quota limits creates only: a full company may still edit, change status and create " +
      "other resources",
    async () => {
      const api = await company({ plan: "enterprise", quotas: { projects: 1, workers: 1 } });
      const [project] = await fill(api, "projects", 1);
      await fill(api, "workers", 1);
      expect(
        (await api.patch(`/v1/projects/${project}`, { name: "Renamed", status: "ACTIVE" })).status,
      ).toBe(200);
      expect((await api.post("/v1/clients", { name: "Clients are not limited" })).status).toBe(201);
      expect((await api.post("/v1/equipment", { name: "Nor is equipment" })).status).toBe(201);
    },
  );
});

describe("quotas under concurrency", () => {
  test("N parallel project creates at the limit create exactly the allowed number", async () => {
    const api = await company({ plan: "enterprise", quotas: { projects: 5 } });
    await fill(api, "projects", 2);
    const responses = await Promise.all(
      Array.from({ length: 24 }, (_, i) => api.post("/v1/projects", { name: `Rush ${i}` })),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201).length).toBe(3);
    expect(statuses.filter((s) => s === 402).length).toBe(21);
    for (const refused of responses.filter((r) => r.status === 402))
      expectProblem(refused, 402, "quota_exceeded");
    expect(await total(api, "projects")).toBe(5);
  });

  test("N parallel worker creates at the limit create exactly the allowed number", async () => {
    const api = await company({ plan: "enterprise", quotas: { workers: 4 } });
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api.post("/v1/workers", { name: `Rush ${i}` })),
    );
    expect(responses.filter((r) => r.status === 201).length).toBe(4);
    expect(responses.filter((r) => r.status === 402).length).toBe(16);
    expect(await total(api, "workers")).toBe(4);
  });

  test("parallel creates mixed with dry-runs and deletes never exceed the limit", async () => {
    const api = await company({ plan: "enterprise", quotas: { projects: 3 } });
    const existing = await fill(api, "projects", 3);
    const requests = [
      ...existing.slice(0, 2).map((id) => api.delete(`/v1/projects/${id}`)),
      ...Array.from({ length: 10 }, (_, i) =>
        api.post("/v1/projects", { name: `Dry ${i}` }, { headers: { "x-dry-run": "1" } }),
      ),
      ...Array.from({ length: 10 }, (_, i) => api.post("/v1/projects", { name: `Real ${i}` })),
    ];
    const responses = await Promise.all(requests);
    const created = responses.slice(12).filter((r) => r.status === 201).length;
    expect(created).toBeLessThanOrEqual(2);
    expect(await total(api, "projects")).toBe(1 + created);
    expect(await total(api, "projects")).toBeLessThanOrEqual(3);
    // With both deletes committed, the company fills exactly to its limit.
    const more = await Promise.all(
      Array.from({ length: 6 }, (_, i) => api.post("/v1/projects", { name: `After ${i}` })),
    );
    expect(more.filter((r) => r.status === 201).length).toBe(2 - created);
    expect(await total(api, "projects")).toBe(3);
  });

  test("the limit holds across server processes sharing one database", async () => {
    const second = await startServer();
    try {
      const token = (await newCompany({ plan: "enterprise", quotas: { projects: 6, workers: 6 } }))
        .token;
      const apis = [suite.api.as(token), new Api(second.baseUrl, token)];
      const responses = await Promise.all(
        Array.from({ length: 40 }, (_, i) => {
          const api = apis[i % 2]!;
          return api.post(i % 4 < 2 ? "/v1/projects" : "/v1/workers", { name: `Across ${i}` });
        }),
      );
      expect(responses.filter((r) => r.status === 201).length).toBe(12);
      expect(responses.filter((r) => r.status === 402).length).toBe(28);
      expect([await total(apis[0]!, "projects"), await total(apis[1]!, "workers")]).toEqual([6, 6]);
    } finally {
      await second.stop();
    }
  });
});
