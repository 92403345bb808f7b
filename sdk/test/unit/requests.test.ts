// What each method sends (method, path, headers, body, query) and what it returns.
import { describe, expect, test } from "bun:test";
import { ApiPromise } from "../../mod.ts";
import { clientWith, fakeFetch, json } from "../helpers/fake-fetch.ts";

const ok =
  (data: unknown, headers: Record<string, string> = {}) =>
  () =>
    json(200, { data }, headers);

describe("requests", () => {
  test("every call authenticates with the bearer token and asks for JSON", async () => {
    const { fetch, seen } = fakeFetch(ok({ id: 1 }));
    await clientWith(fetch).workers.get(1);
    expect(seen[0]!.headers.get("authorization")).toBe("Bearer erp_test");
    expect(seen[0]!.headers.get("accept")).toBe("application/json");
    expect(seen[0]!.headers.get("idempotency-key")).toBeNull();
  });

  test("create posts a JSON body and returns the unwrapped result", async () => {
    const { fetch, seen } = fakeFetch(() =>
      json(201, { data: { id: 9, created: true, dry_run: false } }, { location: "/v1/clients/9" }),
    );
    const made = await clientWith(fetch).clients.create({ name: "Acme", email: "a@acme.test" });
    expect(made).toEqual({ id: 9, created: true, dry_run: false });
    expect(seen[0]!.method).toBe("POST");
    expect(seen[0]!.url.pathname).toBe("/v1/clients");
    expect(seen[0]!.headers.get("content-type")).toBe("application/json");
    expect(seen[0]!.body).toEqual({ name: "Acme", email: "a@acme.test" });
  });

  test("dryRun sends X-Dry-Run: 1 and still carries an idempotency key", async () => {
    const { fetch, seen } = fakeFetch(ok({ id: null, created: false, dry_run: true }));
    const preview = await clientWith(fetch).projects.create({ name: "Depot" }, { dryRun: true });
    expect(preview.id).toBeNull();
    expect(seen[0]!.headers.get("x-dry-run")).toBe("1");
    expect(seen[0]!.headers.get("idempotency-key")).toBeTruthy();
  });

  test("update patches the record, sends If-Match, and returns changes and the record", async () => {
    const result = {
      id: 7,
      updated: true,
      dry_run: false,
      changes: { status: { from: "DRAFT", to: "ACTIVE" } },
      record: { id: 7 },
    };
    const { fetch, seen } = fakeFetch(ok(result));
    const upd = await clientWith(fetch).projects.update(
      7,
      { status: "ACTIVE" },
      { ifMatch: '"abc"' },
    );
    expect(upd.changes.status).toEqual({ from: "DRAFT", to: "ACTIVE" });
    expect(seen[0]!.method).toBe("PATCH");
    expect(seen[0]!.url.pathname).toBe("/v1/projects/7");
    expect(seen[0]!.headers.get("if-match")).toBe('"abc"');
  });

  test('batch with operation "update" sends the items by id, with no on_conflict', async () => {
    const { fetch, seen } = fakeFetch(ok({ results: [] }));
    await clientWith(fetch).workers.batch(
      [{ id: 4, hourly_rate: "45.00", if_match: "2026-01-31T09:30:00.000Z" }],
      { operation: "update", itemKeys: ["k-4"] },
    );
    expect(seen[0]!.url.pathname).toBe("/v1/workers/batch");
    expect(seen[0]!.body).toEqual({
      operation: "update",
      items: [{ id: 4, hourly_rate: "45.00", if_match: "2026-01-31T09:30:00.000Z" }],
      atomic: false,
      item_keys: ["k-4"],
    });
  });

  test("delete sends no body and returns what would be deleted and kept", async () => {
    const result = {
      id: 3,
      deleted: false,
      dry_run: true,
      mode: "soft",
      would_delete: [{ resource: "equipment", id: 3 }],
      would_keep: [],
    };
    const { fetch, seen } = fakeFetch(ok(result));
    const del = await clientWith(fetch).equipment.delete(3, { dryRun: true });
    expect(del.would_delete).toEqual([{ resource: "equipment", id: 3 }]);
    expect(seen[0]!.method).toBe("DELETE");
    expect(seen[0]!.body).toBeUndefined();
    expect(seen[0]!.headers.get("content-type")).toBeNull();
  });

  test("rentals of one equipment are created and billed under its path", async () => {
    const { fetch, seen } = fakeFetch(ok({ id: 1, created: true, dry_run: false }));
    const rentals = clientWith(fetch).equipment.rentals(3);
    await rentals.create({ project_id: 2, start_date: "2025-01-06" });
    await rentals.update(11, { billed: true });
    expect(seen.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      "POST /v1/equipment/3/rentals",
      "PATCH /v1/equipment/3/rentals/11",
    ]);
  });

  test("usage() reads /v1/usage", async () => {
    const usage = {
      period: "2025-01",
      requests: 3,
      dry_run_requests: 1,
      replays: 0,
      quotas: { projects: { used: 1, limit: 3 }, workers: { used: 0, limit: null } },
    };
    const { fetch, seen } = fakeFetch(ok(usage));
    // The generated type lists every quota of the served document; this answer is made up.
    const answered: unknown = await clientWith(fetch).usage();
    expect(answered).toEqual(usage);
    expect(seen[0]!.url.pathname).toBe("/v1/usage");
  });

  test("a base URL with a trailing slash and extra headers are honoured", async () => {
    const { fetch, seen } = fakeFetch(ok({ id: 1 }));
    const { ErpClient } = await import("../../mod.ts");
    const erp = new ErpClient({
      baseUrl: "http://erp.test/",
      token: "t",
      fetch,
      headers: { "x-request-id": "trace-1" },
    });
    await erp.projects.get(1, { headers: { "x-extra": "1" } });
    expect(seen[0]!.url.toString()).toBe("http://erp.test/v1/projects/1");
    expect(seen[0]!.headers.get("x-request-id")).toBe("trace-1");
    expect(seen[0]!.headers.get("x-extra")).toBe("1");
  });
});

describe("withResponse()", () => {
  test("every method returns a real Promise that also gives status, request id, ETag and replay flag", async () => {
    const { fetch } = fakeFetch(() =>
      json(
        201,
        { data: { id: 9, created: true, dry_run: false } },
        { "x-request-id": "req_9", "idempotent-replayed": "true" },
      ),
    );
    const call = clientWith(fetch).projects.create({ name: "Depot" }, { idempotencyKey: "k1" });
    expect(call).toBeInstanceOf(Promise);
    expect(call).toBeInstanceOf(ApiPromise);
    const { data, response } = await call.withResponse();
    expect(data.id).toBe(9);
    expect(response).toMatchObject({
      status: 201,
      requestId: "req_9",
      replayed: true,
      etag: undefined,
    });
  });

  test("the ETag of a read can guard a later update", async () => {
    const { fetch, seen } = fakeFetch(
      ok({ id: 7, name: "Depot" }, { etag: '"e7"' }),
      ok({ id: 7 }),
    );
    const erp = clientWith(fetch);
    const { response } = await erp.projects.get(7).withResponse();
    await erp.projects.update(7, { name: "Depot 2" }, { ifMatch: response.etag });
    expect(seen[1]!.headers.get("if-match")).toBe('"e7"');
  });
});
