// Paging: list() follows the SPEC.md 4.2 rule and visits every record once; listPage() returns one page.
import { describe, expect, test } from "bun:test";
import { clientWith, fakeFetch, json, type SeenRequest } from "../helpers/fake-fetch.ts";

/** A server holding `total` projects that caps the page size at 100, like the real one. */
function collection(total: number) {
  return (request: SeenRequest) => {
    const limit = Math.min(Number(request.url.searchParams.get("limit") ?? 50), 100);
    const offset = Number(request.url.searchParams.get("offset") ?? 0);
    const ids = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => offset + i + 1);
    return json(200, { data: ids.map((id) => ({ id, name: `P${id}` })), meta: { total, limit, offset } });
  };
}

describe("list() auto-paging", () => {
  test("visits every record exactly once, raising offset by the effective limit until it reaches total", async () => {
    const { fetch, seen } = fakeFetch(collection(230));
    const ids = [];
    for await (const project of clientWith(fetch).projects.list({ limit: 500 })) ids.push(project.id);
    expect(ids).toEqual(Array.from({ length: 230 }, (_, i) => i + 1));
    expect(seen.map((r) => r.url.searchParams.get("offset"))).toEqual(["0", "100", "200"]);
  });

  test("reads total from the first page only", async () => {
    let call = 0;
    const { fetch, seen } = fakeFetch((request) => {
      call++;
      const offset = Number(request.url.searchParams.get("offset"));
      return json(200, { data: [{ id: offset + 1 }], meta: { total: call === 1 ? 2 : 9, limit: 1, offset } });
    });
    const all = await clientWith(fetch).workers.list({ limit: 1 }).toArray();
    expect(all.map((w) => w.id)).toEqual([1, 2]);
    expect(seen).toHaveLength(2);
  });

  test("an empty collection costs one request", async () => {
    const { fetch, seen } = fakeFetch(collection(0));
    expect(await clientWith(fetch).clients.list().toArray()).toEqual([]);
    expect(seen).toHaveLength(1);
  });

  test("starts at the given offset and passes filters and fields on every page", async () => {
    const { fetch, seen } = fakeFetch(collection(120));
    const pages = [];
    const list = clientWith(fetch).projects.list({ status: "ACTIVE", client_id: 4, fields: ["name", "status"], offset: 10 });
    for await (const page of list.pages()) pages.push(page.meta);
    expect(pages).toEqual([{ total: 120, limit: 50, offset: 10 }, { total: 120, limit: 50, offset: 60 }, { total: 120, limit: 50, offset: 110 }]);
    for (const request of seen) {
      expect(request.url.searchParams.get("status")).toBe("ACTIVE");
      expect(request.url.searchParams.get("client_id")).toBe("4");
      expect(request.url.searchParams.get("fields")).toBe("name,status");
    }
  });

  test("nothing is requested until iteration starts", () => {
    const { fetch, seen } = fakeFetch(collection(3));
    clientWith(fetch).projects.list();
    expect(seen).toHaveLength(0);
  });
});

describe("listPage()", () => {
  test("returns data and meta of one page", async () => {
    const { fetch, seen } = fakeFetch(collection(7));
    const page = await clientWith(fetch).equipment.listPage({ limit: 5, offset: 5 });
    expect(page.meta).toEqual({ total: 7, limit: 5, offset: 5 });
    expect(page.data.map((e) => e.id)).toEqual([6, 7]);
    expect(seen[0]!.url.pathname).toBe("/v1/equipment");
  });

  test("sub-collections and lookups page the same way", async () => {
    const { fetch, seen } = fakeFetch(collection(2));
    const erp = clientWith(fetch);
    await erp.equipment.rentals(3).list().toArray();
    await erp.trades.listPage();
    await erp.equipmentCategories.list().toArray();
    expect(seen.map((r) => r.url.pathname)).toEqual(["/v1/equipment/3/rentals", "/v1/trades", "/v1/equipment-categories"]);
  });
});
