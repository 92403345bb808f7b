// Paging: list() follows after_id and visits every record once, asking for the total once at most;
// toArray() can stop early; listPage() returns one page, by offset or by after_id.
import { describe, expect, test } from "bun:test";
import { clientWith, fakeFetch, json, type SeenRequest } from "../helpers/fake-fetch.ts";

/** A server holding projects 1..`size` that caps the page size at 100 and pages as the real one does. */
function collection(size: number) {
  return (request: SeenRequest) => {
    const params = request.url.searchParams;
    const limit = Math.min(Number(params.get("limit") ?? 50), 100);
    const total = params.get("total") === "false" ? {} : { total: size };
    if (!params.has("after_id")) {
      const offset = Number(params.get("offset") ?? 0);
      const ids = Array.from(
        { length: Math.max(0, Math.min(limit, size - offset)) },
        (_, i) => offset + i + 1,
      );
      return json(200, {
        data: ids.map((id) => ({ id, name: `P${id}` })),
        meta: { ...total, limit, offset },
      });
    }
    const afterId = Number(params.get("after_id"));
    const ids = Array.from(
      { length: Math.max(0, Math.min(limit, size - afterId)) },
      (_, i) => afterId + i + 1,
    );
    const next = ids.length > 0 && ids.at(-1)! < size ? { next_after_id: ids.at(-1)! } : {};
    return json(200, {
      data: ids.map((id) => ({ id, name: `P${id}` })),
      meta: { ...total, limit, after_id: afterId, ...next },
    });
  };
}

const param = (name: string) => (request: SeenRequest) => request.url.searchParams.get(name);

describe("list() auto-paging", () => {
  test("visits every record exactly once, following meta.next_after_id until a page has none", async () => {
    const { fetch, seen } = fakeFetch(collection(230));
    const ids = [];
    for await (const project of clientWith(fetch).projects.list({ limit: 500 }))
      ids.push(project.id);
    expect(ids).toEqual(Array.from({ length: 230 }, (_, i) => i + 1));
    expect(seen.map(param("after_id"))).toEqual(["0", "100", "200"]);
    expect(seen.map(param("offset"))).toEqual([null, null, null]);
  });

  test("asks for the total on the first page only, and never with total: false", async () => {
    const { fetch, seen } = fakeFetch(collection(120));
    const pages = [];
    for await (const page of clientWith(fetch).projects.list().pages()) pages.push(page.meta);
    expect(seen.map(param("total"))).toEqual([null, "false", "false"]);
    expect(pages).toEqual([
      { total: 120, limit: 50, after_id: 0, next_after_id: 50 },
      { limit: 50, after_id: 50, next_after_id: 100 },
      { limit: 50, after_id: 100 },
    ]);
    const uncounted = fakeFetch(collection(120));
    await clientWith(uncounted.fetch).projects.list({ total: false }).toArray();
    expect(uncounted.seen.map(param("total"))).toEqual(["false", "false", "false"]);
  });

  test("an empty collection costs one request", async () => {
    const { fetch, seen } = fakeFetch(collection(0));
    expect(await clientWith(fetch).clients.list().toArray()).toEqual([]);
    expect(seen).toHaveLength(1);
  });

  test("starts after the given after_id and passes filters and fields on every page", async () => {
    const { fetch, seen } = fakeFetch(collection(120));
    const list = clientWith(fetch).projects.list({
      status: "ACTIVE",
      client_id: 4,
      fields: ["name", "status"],
      after_id: 10,
    });
    const ids = (await list.toArray()).map((project) => project.id);
    expect(ids).toEqual(Array.from({ length: 110 }, (_, i) => i + 11));
    expect(seen.map(param("after_id"))).toEqual(["10", "60", "110"]);
    for (const request of seen) {
      expect(request.url.searchParams.get("status")).toBe("ACTIVE");
      expect(request.url.searchParams.get("client_id")).toBe("4");
      expect(request.url.searchParams.get("fields")).toBe("name,status");
    }
  });

  test("a cursor that is missing or does not move forward ends the list instead of repeating a page", async () => {
    for (const meta of [
      { total: 9, limit: 1, offset: 0 },
      { total: 9, limit: 1, after_id: 0, next_after_id: 0 },
    ]) {
      const { fetch, seen } = fakeFetch(() => json(200, { data: [{ id: 1 }], meta }));
      expect(
        (await clientWith(fetch).workers.list({ limit: 1 }).toArray()).map((worker) => worker.id),
      ).toEqual([1]);
      expect(seen).toHaveLength(1);
    }
  });

  test("nothing is requested until iteration starts", () => {
    const { fetch, seen } = fakeFetch(collection(3));
    clientWith(fetch).projects.list();
    expect(seen).toHaveLength(0);
  });
});

describe("toArray({ limit })", () => {
  test("returns the first `limit` records and fetches no page after the one that reaches it", async () => {
    const { fetch, seen } = fakeFetch(collection(1000));
    const first = await clientWith(fetch).workers.list({ limit: 50 }).toArray({ limit: 120 });
    expect(first.map((worker) => worker.id)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    expect(seen).toHaveLength(3);
  });

  test(
    "a limit above the collection's size returns everything; 0 sends nothing; a bad limit is " +
      "a RangeError",
    async () => {
      const { fetch, seen } = fakeFetch(collection(7));
      expect(await clientWith(fetch).workers.list().toArray({ limit: 100 })).toHaveLength(7);
      expect(await clientWith(fetch).workers.list().toArray({ limit: 0 })).toEqual([]);
      expect(seen).toHaveLength(1);
      for (const limit of [-1, 1.5, Number.NaN])
        await expect(clientWith(fetch).workers.list().toArray({ limit })).rejects.toBeInstanceOf(
          RangeError,
        );
    },
  );
});

describe("listPage()", () => {
  test("returns data and meta of one page by offset", async () => {
    const { fetch, seen } = fakeFetch(collection(7));
    const page = await clientWith(fetch).equipment.listPage({ limit: 5, offset: 5 });
    expect(page.meta).toEqual({ total: 7, limit: 5, offset: 5 });
    expect(page.data.map((e) => e.id)).toEqual([6, 7]);
    expect(seen[0]!.url.pathname).toBe("/v1/equipment");
  });

  test("returns one page by after_id, with or without the total", async () => {
    const { fetch, seen } = fakeFetch(collection(7));
    const page = await clientWith(fetch).equipment.listPage({
      limit: 5,
      after_id: 0,
      total: false,
    });
    expect(page.meta).toEqual({ limit: 5, after_id: 0, next_after_id: 5 });
    expect(seen[0]!.url.search).toBe("?limit=5&after_id=0&total=false");
  });

  test("sub-collections and lookups page the same way", async () => {
    const { fetch, seen } = fakeFetch(collection(2));
    const erp = clientWith(fetch);
    await erp.equipment.rentals(3).list().toArray();
    await erp.trades.listPage();
    await erp.equipmentCategories.list().toArray();
    expect(seen.map((r) => r.url.pathname)).toEqual([
      "/v1/equipment/3/rentals",
      "/v1/trades",
      "/v1/equipment-categories",
    ]);
    expect(seen.map(param("after_id"))).toEqual(["0", null, "0"]);
  });
});
