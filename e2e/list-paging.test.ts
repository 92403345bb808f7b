// Lists at scale: after_id paging (every record once while others write), total=false, and
// meta.total exact whatever the writes (concurrent creates, batches, a failed atomic batch,
// upserts, deletes), compared with a COUNT(*) in the database.
import { describe, expect, test } from "bun:test";
import type { RowDataPacket } from "mysql2";
import { type Api, type ApiResponse, create } from "@erp/testing/api";
import { newCompany, testDb } from "@erp/testing/company";
import { useServer } from "@erp/testing/suite";

const suite = useServer();

interface Mine {
  api: Api;
  companyId: number;
}

async function company(): Promise<Mine> {
  const made = await newCompany();
  return { api: suite.api.as(made.token), companyId: made.companyId };
}

const idsOf = (body: { data: { id: number }[] }): number[] => body.data.map((row) => row.id);

/** Every page from after_id=0 on, following meta.next_after_id; `between` runs after each page. */
async function pageThrough(
  api: Api,
  query: string,
  between: () => Promise<void> = async () => {},
): Promise<{ ids: number[]; pages: number }> {
  const ids: number[] = [];
  let afterId: number | null = 0;
  let pages = 0;
  while (afterId !== null) {
    const page: ApiResponse = await api.get(`/v1/clients?${query}&after_id=${afterId}`);
    expect(page.status, page.text).toBe(200);
    expect(page.body.meta.after_id).toBe(afterId);
    ids.push(...idsOf(page.body));
    afterId = page.body.meta.next_after_id ?? null;
    pages += 1;
    await between();
  }
  return { ids, pages };
}

async function batchOfClients(api: Api, count: number, prefix: string): Promise<number[]> {
  const response = await api.post("/v1/clients/batch", {
    items: Array.from({ length: count }, (_, i) => ({ name: `${prefix} ${i}` })),
  });
  expect(response.status, response.text).toBe(200);
  return response.body.data.results.map((result: { id: number }) => result.id);
}

describe("after_id paging", () => {
  test(
    "visits every record that exists throughout exactly once, in id order, while other " +
      "clients create and delete records",
    async () => {
      const { api } = await company();
      const initial = await batchOfClients(api, 120, "Initial");
      const doomed = initial.filter((_, index) => index % 3 === 1);
      const throughout = initial.filter((id) => !doomed.includes(id));
      const created: number[] = [];
      const deleted: number[] = [];

      // Writers create and delete freely until the reader is done; the reader waits for two more
      // writes after each page, so every page is read between writes.
      let writes = 0;
      const waiting: (() => void)[] = [];
      const wrote = () => {
        writes += 1;
        for (const wake of waiting.splice(0)) wake();
      };
      const writesReach = async (count: number) => {
        while (writes < count) await new Promise<void>((wake) => waiting.push(wake));
      };
      let done = false;
      const queue = [...doomed];
      const writer = async (name: string) => {
        for (let round = 0; !done; round++) {
          created.push(await create(api, "/v1/clients", { name: `${name} ${round}` }));
          wrote();
          const victim = queue.shift();
          if (victim === undefined) continue;
          expect((await api.delete(`/v1/clients/${victim}`)).status).toBe(200);
          deleted.push(victim);
          wrote();
        }
      };
      const writers = ["Writer A", "Writer B", "Writer C"].map(writer);
      const { ids, pages } = await pageThrough(api, "limit=7&total=false", () =>
        writesReach(writes + 2),
      ).finally(() => {
        done = true;
      });
      await Promise.all(writers);

      expect(pages).toBeGreaterThan(15);
      expect(deleted.length).toBeGreaterThan(10);
      expect(created.length).toBeGreaterThan(10);
      // Strictly increasing: nothing seen twice, nothing out of order.
      for (let index = 1; index < ids.length; index++)
        expect(ids[index]!).toBeGreaterThan(ids[index - 1]!);
      const seen = new Set(ids);
      expect(throughout.filter((id) => !seen.has(id))).toEqual([]);
      const known = new Set([...initial, ...created]);
      expect(ids.filter((id) => !known.has(id))).toEqual([]);
    },
  );

  test("filters, q, fields, updated_since and include_deleted apply as on offset pages", async () => {
    const { api } = await company();
    const made = await batchOfClients(api, 9, "Seek");
    await api.patch(`/v1/clients/${made[1]}`, { status: "INACTIVE" });
    await api.patch(`/v1/clients/${made[4]}`, { status: "INACTIVE" });
    await api.patch(`/v1/clients/${made[7]}`, { status: "INACTIVE" });
    const inactive = [made[1]!, made[4]!, made[7]!];
    expect((await pageThrough(api, "limit=2&status=inactive")).ids).toEqual(inactive);
    expect((await pageThrough(api, "limit=2&q=seek 4")).ids).toEqual([made[4]!]);

    const sparse = await api.get(`/v1/clients?after_id=${made[0]}&limit=2&fields=name`);
    expect(sparse.body.data).toEqual([
      { id: made[1], name: "Seek 1" },
      { id: made[2], name: "Seek 2" },
    ]);
    expect(sparse.body.meta).toEqual({
      total: 9,
      limit: 2,
      after_id: made[0],
      next_after_id: made[2],
    });
    // The media type follows Accept: a client naming application/json alone gets it, fields or not.
    const contentType = async (accept?: string) =>
      (
        await api.get(`/v1/clients?limit=1&fields=name`, {
          headers: accept === undefined ? {} : { accept },
        })
      ).headers.get("content-type");
    expect(await contentType()).toBe("application/vnd.erp.sparse+json");
    expect(await contentType("*/*")).toBe("application/vnd.erp.sparse+json");
    expect(await contentType("application/json")).toBe("application/json");
    expect(await contentType("application/vnd.erp.sparse+json, application/json;q=0.5")).toBe(
      "application/vnd.erp.sparse+json",
    );

    const since = (await api.get(`/v1/clients/${made[7]}`)).body.data.updated_at;
    expect((await pageThrough(api, `limit=1&updated_since=${since}`)).ids).toEqual([made[7]!]);

    await api.delete(`/v1/clients/${made[5]}`);
    expect((await pageThrough(api, "limit=4")).ids).toEqual(made.filter((id) => id !== made[5]));
    const withDeleted = await api.get(
      `/v1/clients?after_id=${made[4]}&limit=2&include_deleted=true`,
    );
    expect(idsOf(withDeleted.body)).toEqual([made[5]!, made[6]!]);
    expect(withDeleted.body.data[0].deleted_at).toEqual(expect.any(String));
    expect(withDeleted.body.data[1].deleted_at).toBeNull();
  });

  test(
    "next_after_id is the last id shown while more follow and absent on the last page, even " +
      "when the page is full",
    async () => {
      const { api } = await company();
      const made = await batchOfClients(api, 6, "Edge");
      const first = await api.get("/v1/clients?after_id=0&limit=3");
      expect(idsOf(first.body)).toEqual(made.slice(0, 3));
      expect(first.body.meta).toEqual({ total: 6, limit: 3, after_id: 0, next_after_id: made[2] });
      const last = await api.get(`/v1/clients?after_id=${made[2]}&limit=3`);
      expect(idsOf(last.body)).toEqual(made.slice(3));
      expect(last.body.meta).toEqual({ total: 6, limit: 3, after_id: made[2] });
      const beyond = await api.get(`/v1/clients?after_id=${made[5]}`);
      expect(beyond.body).toEqual({ data: [], meta: { total: 6, limit: 50, after_id: made[5] } });
      const empty = await (await company()).api.get("/v1/clients?after_id=0");
      expect(empty.body).toEqual({ data: [], meta: { total: 0, limit: 50, after_id: 0 } });
    },
  );

  test("sub-collections and lookups page by after_id too", async () => {
    const { api } = await company();
    const trades = idsOf((await api.get("/v1/trades?limit=100")).body);
    expect(trades.length).toBeGreaterThan(4);
    const second = await api.get(`/v1/trades?after_id=${trades[1]}&limit=2`);
    expect(idsOf(second.body)).toEqual(trades.slice(2, 4));
    expect(second.body.meta).toEqual({
      total: trades.length,
      limit: 2,
      after_id: trades[1],
      next_after_id: trades[3],
    });

    const equipment = await create(api, "/v1/equipment", { name: "Crane" });
    const project = await create(api, "/v1/projects", { name: "Site" });
    const rentals: number[] = [];
    for (const start of ["2026-01-01", "2026-02-01", "2026-03-01"])
      rentals.push(
        await create(api, `/v1/equipment/${equipment}/rentals`, {
          project_id: project,
          start_date: start,
        }),
      );
    const page = await api.get(
      `/v1/equipment/${equipment}/rentals?after_id=${rentals[0]}&limit=1&total=false`,
    );
    expect(idsOf(page.body)).toEqual([rentals[1]!]);
    expect(page.body.meta).toEqual({ limit: 1, after_id: rentals[0], next_after_id: rentals[1] });
  });

  test("after_id with offset, or a bad after_id or total, is 400 invalid_query", async () => {
    const { api } = await company();
    for (const query of [
      "after_id=0&offset=0",
      "after_id=5&offset=10",
      "after_id=-1",
      "after_id=x",
      "after_id=1.5",
      "after_id=1&after_id=2",
      "total=maybe",
    ]) {
      const response = await api.get(`/v1/clients?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.code, query).toBe("invalid_query");
    }
    expect((await api.get("/v1/trades?after_id=0&offset=1")).body.code).toBe("invalid_query");
  });
});

describe("total=false", () => {
  test("leaves meta.total out of offset and after_id pages, filtered or not, and keeps the ETag", async () => {
    const { api } = await company();
    const made = await batchOfClients(api, 3, "Untotalled");
    for (const query of [
      "total=false",
      "total=0&status=active",
      "after_id=0&total=false",
      "after_id=0&total=false&q=untotalled",
    ]) {
      const page = await api.get(`/v1/clients?limit=2&${query}`);
      expect(page.status, query).toBe(200);
      expect(page.body.meta, query).not.toHaveProperty("total");
      expect(idsOf(page.body), query).toEqual(made.slice(0, 2));
      expect(page.headers.get("etag"), query).toMatch(/^"[^"]+"$/);
    }
    expect((await api.get("/v1/clients?limit=2&total=false")).body.meta).toEqual({
      limit: 2,
      offset: 0,
    });
    expect((await api.get("/v1/clients?limit=2&total=true")).body.meta).toEqual({
      total: 3,
      limit: 2,
      offset: 0,
    });
  });
});

describe("meta.total", () => {
  async function counted(companyId: number, where = ""): Promise<number> {
    const [rows] = await testDb().pool.query<RowDataPacket[]>(
      `SELECT COUNT(*) AS n FROM workers WHERE company_id = ? AND deleted_at IS NULL ${where}`,
      [companyId],
    );
    return Number(rows[0]!.n);
  }

  /** The unfiltered and a filtered total, each equal to a COUNT(*) of the database. */
  async function expectExactTotals(mine: Mine): Promise<number> {
    const all = await mine.api.get("/v1/workers?limit=1");
    const seek = await mine.api.get("/v1/workers?limit=1&after_id=0");
    const inactive = await mine.api.get("/v1/workers?limit=1&status=inactive");
    const expected = await counted(mine.companyId);
    expect(all.body.meta.total).toBe(expected);
    expect(seek.body.meta.total).toBe(expected);
    expect(inactive.body.meta.total).toBe(await counted(mine.companyId, "AND status = 'INACTIVE'"));
    return expected;
  }

  test(
    "stays exact under 12 concurrent writers, a batch, an atomic batch that fails, upserts " +
      "and deletes",
    async () => {
      const mine = await company();
      const { api } = mine;
      expect(await expectExactTotals(mine)).toBe(0);

      // 12 writers at once, each creating 6 workers (every third inactive) and deleting 2 of them.
      const survivors = await Promise.all(
        Array.from({ length: 12 }, async (_, writer) => {
          const ids: number[] = [];
          for (let index = 0; index < 6; index++)
            ids.push(
              await create(api, "/v1/workers", {
                name: `W${writer}-${index}`,
                status: index % 3 === 0 ? "INACTIVE" : "ACTIVE",
              }),
            );
          for (const id of ids.slice(0, 2))
            expect((await api.delete(`/v1/workers/${id}`)).status).toBe(200);
          return ids.slice(2);
        }),
      );
      expect(await expectExactTotals(mine)).toBe(48);

      const batch = await api.post("/v1/workers/batch", {
        items: [
          ...Array.from({ length: 10 }, (_, i) => ({ name: `B${i}`, external_id: `b-${i}` })),
          { name: "Bad", email: "not-an-email" },
        ],
      });
      expect(batch.body.data).toMatchObject({ created: 10, failed: 1 });
      expect(await expectExactTotals(mine)).toBe(58);

      const atomic = await api.post("/v1/workers/batch", {
        atomic: true,
        items: [{ name: "A1", status: "INACTIVE" }, { name: "A2" }, { name: "" }],
      });
      expect([atomic.status, atomic.body.code]).toEqual([422, "batch_failed"]);
      expect(await expectExactTotals(mine)).toBe(58);

      const upserts = await api.post("/v1/workers/batch", {
        on_conflict: "update",
        items: [
          { name: "B0 again", external_id: "b-0", status: "INACTIVE" },
          { name: "U1", external_id: "u-1" },
          { name: "U2", external_id: "u-2", status: "INACTIVE" },
        ],
      });
      expect(upserts.body.data).toMatchObject({ created: 2, updated: 1, failed: 0 });
      expect(
        (await api.request("PUT", "/v1/workers/by-external-id/u-3", { body: { name: "U3" } }))
          .status,
      ).toBe(201);
      expect(
        (
          await api.request("PUT", "/v1/workers/by-external-id/u-3", {
            body: { name: "U3", status: "INACTIVE" },
          })
        ).status,
      ).toBe(200);
      expect(await expectExactTotals(mine)).toBe(61);

      const doomed = survivors.flat().slice(0, 10);
      expect(
        (await api.delete(`/v1/workers/${doomed[0]}`, { headers: { "x-dry-run": "1" } })).status,
      ).toBe(200);
      const deletes = await Promise.all(doomed.map((id) => api.delete(`/v1/workers/${id}`)));
      expect(deletes.map((response) => response.status)).toEqual(doomed.map(() => 200));
      expect((await api.delete(`/v1/workers/${doomed[0]}`)).status).toBe(404);
      expect(await expectExactTotals(mine)).toBe(51);
    },
  );
});
