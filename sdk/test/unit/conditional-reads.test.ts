// Conditional reads: get() remembers ETags, revalidates with If-None-Match and reuses the body on 304.
import { describe, expect, test } from "bun:test";
import { NotFoundError } from "../../mod.ts";
import { clientWith, fakeFetch, json, problem, rejectionOf } from "../helpers/fake-fetch.ts";

const project = { id: 7, name: "Depot", status: "ACTIVE" };
const fresh = () => json(200, { data: project }, { etag: '"v1"' });
const notModified = () => new Response(null, { status: 304, headers: { etag: '"v1"' } });

describe("get() revalidation", () => {
  test("a second get() sends If-None-Match and returns the remembered record on 304", async () => {
    const { fetch, seen } = fakeFetch(fresh, notModified);
    const erp = clientWith(fetch);
    expect<unknown>(await erp.projects.get(7)).toEqual(project);
    const { data, response } = await erp.projects.get(7).withResponse();
    expect<unknown>(data).toEqual(project);
    expect(response.status).toBe(304);
    expect(response.etag).toBe('"v1"');
    expect(seen[0]!.headers.get("if-none-match")).toBeNull();
    expect(seen[1]!.headers.get("if-none-match")).toBe('"v1"');
  });

  test("each call gets its own copy, so mutating a result does not change the next one", async () => {
    const { fetch } = fakeFetch(fresh, notModified);
    const erp = clientWith(fetch);
    const first = await erp.projects.get(7);
    first.name = "Changed";
    expect((await erp.projects.get(7)).name).toBe("Depot");
  });

  test("a changed record replaces the remembered one", async () => {
    const changed = () => json(200, { data: { ...project, name: "Depot 2" } }, { etag: '"v2"' });
    const { fetch, seen } = fakeFetch(fresh, changed, notModified);
    const erp = clientWith(fetch);
    await erp.projects.get(7);
    expect((await erp.projects.get(7)).name).toBe("Depot 2");
    await erp.projects.get(7);
    expect(seen[2]!.headers.get("if-none-match")).toBe('"v2"');
  });

  test("field selections are remembered separately", async () => {
    const { fetch, seen } = fakeFetch(fresh);
    const erp = clientWith(fetch);
    await erp.projects.get(7);
    await erp.projects.get(7, { fields: ["name"] });
    expect(seen[1]!.headers.get("if-none-match")).toBeNull();
    expect(seen[1]!.url.searchParams.get("fields")).toBe("name");
  });

  test("a 404 forgets the record", async () => {
    const { fetch, seen } = fakeFetch(fresh, () => problem(404, "not_found"), fresh);
    const erp = clientWith(fetch);
    await erp.projects.get(7);
    expect(await rejectionOf(erp.projects.get(7))).toBeInstanceOf(NotFoundError);
    await erp.projects.get(7);
    expect(seen[2]!.headers.get("if-none-match")).toBeNull();
  });

  test("etagCacheSize: 0 turns revalidation off", async () => {
    const { fetch, seen } = fakeFetch(fresh);
    const erp = clientWith(fetch, { etagCacheSize: 0 });
    await erp.projects.get(7);
    await erp.projects.get(7);
    expect(seen[1]!.headers.get("if-none-match")).toBeNull();
  });
});
