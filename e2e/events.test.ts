// The change feed and audit trail (docs/events-and-webhooks.md): one event per committed change, in commit
// order, followed by cursor exactly once even while several servers commit at once.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { RowDataPacket } from "mysql2";
import { Api, type ApiResponse } from "@erp/testing/api";
import { newCompany, testDb } from "@erp/testing/company";
import { startServer, type RunningServer } from "@erp/testing/server";
import { useServer } from "@erp/testing/suite";
import { purgeExpired } from "@erp/server/housekeeping";
import { purgeExpiredEvents } from "@erp/server/retention";

setDefaultTimeout(60_000);

const suite = useServer();

interface FeedEvent {
  id: string;
  type: string;
  resource: string;
  record_id: number;
  data: {
    record: Record<string, unknown>;
    changes?: Record<string, { from: unknown; to: unknown }>;
  };
  request_id: string;
  idempotency_key: string | null;
  created_at: string;
}

async function companyApi(
  overrides: Parameters<typeof newCompany>[0] = {},
): Promise<{ api: Api; companyId: number }> {
  const created = await newCompany(overrides);
  return { api: suite.api.as(created.token), companyId: created.companyId };
}

/** Every event after `after`, following next_cursor page by page. */
async function follow(
  api: Api,
  after?: string,
  query = "",
): Promise<{ events: FeedEvent[]; cursor: string | null }> {
  const events: FeedEvent[] = [];
  let cursor = after ?? null;
  for (;;) {
    const page = await api.get(`/v1/events?limit=100${cursor ? `&after=${cursor}` : ""}${query}`);
    expect(page.status).toBe(200);
    events.push(...(page.body.data as FeedEvent[]));
    const next = page.body.meta.next_cursor as string | null;
    if ((page.body.data as FeedEvent[]).length === 0) return { events, cursor: next };
    cursor = next;
  }
}

describe("events of writes", () => {
  test(
    "a record's history after create, two updates and a delete: four events with the " +
      "changes, request ids and keys",
    async () => {
      const { api } = await companyApi();
      const created = await api.post(
        "/v1/clients",
        { name: "Northwind" },
        { headers: { "idempotency-key": "make-northwind", "x-request-id": "req-create" } },
      );
      const id = created.body.data.id as number;
      await api.patch(
        `/v1/clients/${id}`,
        { email: "office@northwind.test" },
        { headers: { "x-request-id": "req-email" } },
      );
      await api.patch(
        `/v1/clients/${id}`,
        { status: "INACTIVE" },
        { headers: { "idempotency-key": "deactivate" } },
      );
      await api.delete(`/v1/clients/${id}`, { headers: { "x-request-id": "req-delete" } });

      const history = await api.get(`/v1/clients/${id}/events`);
      expect(history.status).toBe(200);
      const events = history.body.data as FeedEvent[];
      expect(events.map((event) => event.type)).toEqual([
        "client.created",
        "client.updated",
        "client.updated",
        "client.deleted",
      ]);
      expect(
        events.map((event) => event.request_id).filter((requestId) => requestId.startsWith("req-")),
      ).toEqual(["req-create", "req-email", "req-delete"]);
      expect(events.map((event) => event.idempotency_key)).toEqual([
        "make-northwind",
        null,
        "deactivate",
        null,
      ]);
      expect(events[1]!.data.changes).toEqual({
        email: { from: null, to: "office@northwind.test" },
      });
      expect(events[2]!.data.changes).toEqual({ status: { from: "ACTIVE", to: "INACTIVE" } });
      expect(events[3]!.data.record).toMatchObject({ id, name: "Northwind", status: "INACTIVE" });
      expect(events.every((event) => event.resource === "clients" && event.record_id === id)).toBe(
        true,
      );
      // The history outlives the record.
      expect((await api.get(`/v1/clients/${id}`)).status).toBe(404);
    },
  );

  test("a create's event carries the record exactly as a read shows it", async () => {
    const { api } = await companyApi();
    const id = (
      await api.post("/v1/projects", {
        name: "Depot",
        budget_amount: 12.5,
        start_date: "2026-03-01",
      })
    ).body.data.id as number;
    const read = (await api.get(`/v1/projects/${id}`)).body.data;
    const [event] = (await api.get(`/v1/projects/${id}/events`)).body.data as FeedEvent[];
    expect(event!.data.record).toEqual(read);
  });

  test("dry-runs, replays, refusals and updates that change nothing append no event", async () => {
    const { api } = await companyApi();
    const id = (
      await api.post("/v1/workers", { name: "Ann" }, { headers: { "idempotency-key": "ann" } })
    ).body.data.id as number;
    const { events: before, cursor } = await follow(api);
    expect(before.map((event) => event.type)).toEqual(["worker.created"]);
    await api.post("/v1/workers", { name: "Ann" }, { headers: { "idempotency-key": "ann" } });
    await api.post("/v1/workers", { name: "Dry" }, { headers: { "x-dry-run": "1" } });
    await api.patch(`/v1/workers/${id}`, { name: "Ann" });
    await api.patch(`/v1/workers/${id}`, { email: "not an email" });
    await api.delete(`/v1/workers/${id}`, { headers: { "x-dry-run": "1" } });
    expect((await follow(api, cursor!)).events).toEqual([]);
  });

  test("a delete that takes unbilled rentals with it records each of them", async () => {
    const { api } = await companyApi();
    const project = (await api.post("/v1/projects", { name: "Site" })).body.data.id as number;
    const machine = (await api.post("/v1/equipment", { name: "Crane" })).body.data.id as number;
    const rental = (
      await api.post(`/v1/equipment/${machine}/rentals`, {
        project_id: project,
        start_date: "2026-04-01",
      })
    ).body.data.id as number;
    const { cursor } = await follow(api);
    expect((await api.delete(`/v1/equipment/${machine}`)).status).toBe(200);
    const { events } = await follow(api, cursor!);
    expect(events.map((event) => [event.type, event.record_id])).toEqual([
      ["rental.deleted", rental],
      ["equipment.deleted", machine],
    ]);
  });
});

describe("the feed", () => {
  test("pages follow next_cursor; type and resource narrow it; a company sees only its own events", async () => {
    const { api } = await companyApi();
    const other = await companyApi();
    await other.api.post("/v1/clients", { name: "Not yours" });
    for (let i = 0; i < 5; i += 1) await api.post("/v1/clients", { name: `Client ${i}` });
    const project = (await api.post("/v1/projects", { name: "P" })).body.data.id as number;
    await api.patch(`/v1/projects/${project}`, { status: "ACTIVE" });

    const first = await api.get("/v1/events?limit=3");
    expect(first.body.data).toHaveLength(3);
    const rest = await api.get(`/v1/events?after=${first.body.meta.next_cursor}`);
    expect([...first.body.data, ...rest.body.data].map((event: FeedEvent) => event.type)).toEqual([
      ...Array(5).fill("client.created"),
      "project.created",
      "project.updated",
    ]);
    expect(
      (await api.get("/v1/events?type=project.*")).body.data.map((event: FeedEvent) => event.type),
    ).toEqual(["project.created", "project.updated"]);
    expect((await api.get("/v1/events?type=client.created&limit=2")).body.data).toHaveLength(2);
    expect((await api.get("/v1/events?resource=projects")).body.data).toHaveLength(2);
    // Polling with the last cursor waits for the next event.
    const tail = await api.get(`/v1/events?after=${rest.body.meta.next_cursor}`);
    expect(tail.body).toEqual({
      data: [],
      meta: { next_cursor: rest.body.meta.next_cursor, limit: 50 },
    });
  });

  test("bad cursors and filters are 400 invalid_query; another record's history is 404", async () => {
    const { api } = await companyApi();
    for (const query of ["after=nope", "type=project", "resource=planets", "limit=0"]) {
      const response = await api.get(`/v1/events?${query}`);
      expect({ query, status: response.status, code: response.body.code }).toEqual({
        query,
        status: 400,
        code: "invalid_query",
      });
    }
    const other = await companyApi();
    const theirs = (await other.api.post("/v1/clients", { name: "Theirs" })).body.data.id as number;
    expect((await api.get(`/v1/clients/${theirs}/events`)).status).toBe(404);
  });

  test("a cursor before the 30-day retention is 410 cursor_expired", async () => {
    const { api, companyId } = await companyApi();
    await api.post("/v1/clients", { name: "Old" });
    const old = (await api.get("/v1/events")).body.data[0] as FeedEvent;
    await api.post("/v1/clients", { name: "Newer" });
    const { events } = await follow(api);
    await testDb().pool.query(
      "UPDATE events SET created_at = NOW(3) - INTERVAL 31 DAY WHERE company_id = ? AND id IN (?, ?)",
      [companyId, old.id, events[1]!.id],
    );
    await purgeExpired(testDb().db);
    const expired = await api.get(`/v1/events?after=${old.id}`);
    expect({ status: expired.status, code: expired.body.code }).toEqual({
      status: 410,
      code: "cursor_expired",
    });
    expect((await api.get(`/v1/events?after=${events[1]!.id}`)).status).toBe(200);
  });
  test(
    "retention deletes a company's expired events from its oldest on, in batches, and keeps " +
      "the rest",
    async () => {
      const { api, companyId } = await companyApi();
      const other = await companyApi();
      for (const name of ["A", "B", "C", "D", "E", "F"]) await api.post("/v1/clients", { name });
      await other.api.post("/v1/clients", { name: "Theirs" });
      const { events } = await follow(api);
      const old = events.slice(0, 5).map((event) => event.id);
      await testDb().pool.query(
        "UPDATE events SET created_at = NOW(3) - INTERVAL 31 DAY WHERE company_id = ? AND id IN (?)",
        [companyId, old],
      );
      // Batches of two: three rounds for the five expired events, none for the other company's.
      expect(await purgeExpiredEvents(testDb().db, 2)).toBeGreaterThanOrEqual(5);
      expect((await follow(api)).events.map((event) => event.id)).toEqual([events[5]!.id]);
      expect((await api.get(`/v1/events?after=${old[4]}`)).status).toBe(200);
      expect((await api.get(`/v1/events?after=${old[3]}`)).status).toBe(410);
      expect((await follow(other.api)).events).toHaveLength(1);
    },
  );
});

describe("lists for resyncs", () => {
  test("updated_since returns what changed since; include_deleted adds deleted records with deleted_at", async () => {
    const { api } = await companyApi();
    const a = (await api.post("/v1/clients", { name: "A" })).body.data.id as number;
    const b = (await api.post("/v1/clients", { name: "B" })).body.data.id as number;
    await Bun.sleep(20);
    const since = new Date().toISOString();
    await Bun.sleep(20);
    await api.patch(`/v1/clients/${b}`, { name: "B2" });
    await api.delete(`/v1/clients/${a}`);
    const changed = await api.get(`/v1/clients?updated_since=${since}`);
    expect(changed.body.data.map((client: { id: number }) => client.id)).toEqual([b]);
    const withDeleted = await api.get(`/v1/clients?updated_since=${since}&include_deleted=true`);
    expect(
      withDeleted.body.data.map((client: { id: number; deleted_at: string | null }) => [
        client.id,
        client.deleted_at === null,
      ]),
    ).toEqual([
      [a, false],
      [b, true],
    ]);
    expect((await api.get("/v1/clients?updated_since=yesterday")).body.code).toBe("invalid_query");
  });
});

describe("commit order under concurrency", () => {
  test(
    "3 servers writing concurrently: a follower sees every committed change once, in commit " +
      "order per record, with no gaps",
    async () => {
      const servers: RunningServer[] = [suite.server, await startServer(), await startServer()];
      try {
        const { api, companyId } = await companyApi();
        const apis = servers.map((server) => new Api(server.baseUrl, api.token));
        const ids: number[] = [];
        for (let i = 0; i < 6; i += 1)
          ids.push((await api.post("/v1/clients", { name: `Shared ${i}` })).body.data.id as number);

        const seen: FeedEvent[] = [];
        let writing = true;
        const follower = (async () => {
          let cursor: string | null = null;
          for (;;) {
            const finished = !writing;
            const page: ApiResponse = await apis[2]!.get(
              `/v1/events?limit=100${cursor ? `&after=${cursor}` : ""}`,
            );
            seen.push(...(page.body.data as FeedEvent[]));
            cursor = page.body.meta.next_cursor;
            if (finished && page.body.data.length === 0) return;
            if (page.body.data.length === 0) await Bun.sleep(10);
          }
        })();
        // Writers on all three servers: updates of the same records race, creates interleave.
        await Promise.all(
          apis.map((client, server) =>
            (async () => {
              for (let round = 0; round < 25; round += 1) {
                const target = ids[(round + server) % ids.length]!;
                await client.patch(`/v1/clients/${target}`, {
                  billing_address: `server ${server} round ${round}`,
                });
                await client.post("/v1/clients", { name: `From ${server}-${round}` });
              }
            })(),
          ),
        );
        writing = false;
        await follower;

        const [rows] = await testDb().pool.query<RowDataPacket[]>(
          "SELECT seq, id, record_id FROM events WHERE company_id = ? ORDER BY seq",
          [companyId],
        );
        const sequences = rows.map((row) => Number(row.seq));
        expect(sequences).toEqual(Array.from({ length: rows.length }, (_, i) => i + 1));
        expect(seen.map((event) => event.id)).toEqual(rows.map((row) => row.id));
        expect(new Set(seen.map((event) => event.id)).size).toBe(seen.length);
        // Per record, the feed's last update carries the value the record ended with.
        for (const id of ids) {
          const updates = seen.filter(
            (event) => event.record_id === id && event.type === "client.updated",
          );
          const final = (await api.get(`/v1/clients/${id}`)).body.data.billing_address;
          expect(updates.at(-1)?.data.record.billing_address).toBe(final);
          for (let i = 1; i < updates.length; i += 1)
            expect(updates[i]!.data.changes!.billing_address!.from).toBe(
              updates[i - 1]!.data.record.billing_address,
            );
        }
        console.log(
          `[events] 3 servers: ${rows.length} events, ${seen.length} seen by the follower, 0 gaps, 0 duplicates`,
        );
      } finally {
        await Promise.all(servers.slice(1).map((server) => server.stop()));
      }
    },
  );
});
