// import() against a scripted server: item keys (the same the CLI has always given a row), one
// result per row in the rows' order, the journal, refused rows, the abort signal and the pacing.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { ItemKeys, MemoryJournal, rowContent } from "../../mod.ts";
import { hexOf, sha256 } from "../../src/import/sha256.ts";
import { clientWith, fakeFetch, json, problem, type SeenRequest } from "../helpers/fake-fetch.ts";

/** A batch route that creates every item but those named "bad" (422 on email), ids from 1; no quota. */
function batchServer(headers: Record<string, string> = {}) {
  let id = 0;
  return fakeFetch((request: SeenRequest) => {
    // GET /v1/usage: no quota, so batches may overlap.
    if (request.method === "GET") return json(200, { data: { quotas: {} } });
    const items = (request.body as { items: { name: string }[] }).items;
    const results = items.map((item, index) =>
      item.name === "bad"
        ? {
            index,
            status: 422,
            id: null,
            error: {
              type: "about:blank",
              title: "Unprocessable Entity",
              status: 422,
              code: "validation_failed",
              detail: "1 field has a problem",
              request_id: "req_1",
              errors: [{ field: "email", code: "invalid_email", message: "must be an email" }],
            },
          }
        : { index, status: 201, id: ++id, action: "created" },
    );
    return json(200, { data: { dry_run: false, atomic: false, results } }, headers);
  });
}

const rowsOf = (count: number): { name: string }[] =>
  Array.from({ length: count }, (_, i) => ({ name: i % 10 === 9 ? "bad" : `Row ${i}` }));

describe("item keys", () => {
  test("the portable SHA-256 is SHA-256", () => {
    const digest = new Uint8Array(32);
    for (const text of ["", "abc", "a".repeat(55), "a".repeat(64), "Zoë €😀".repeat(50)]) {
      sha256(text, digest);
      expect(hexOf(digest)).toBe(createHash("sha256").update(text).digest("hex"));
    }
  });

  test("a row's key is the one `erp import` has always given it: content and occurrence, not order", () => {
    const keys = new ItemKeys("workers", "create");
    const ann = { name: "Ann", hourly_rate: "45.50" };
    const expected = "erp-row-4f7bacc3416ff7564e8184390c9ff1079f56288eec62815c9f0a72af79c60f9f";
    expect(keys.next(rowContent(ann, "create"))).toBe(`${expected}-1`);
    // Member order and an export's read-only members do not count; a second identical row is its own.
    const exported = { id: 9, hourly_rate: "45.50", name: "Ann", updated_at: "2026-01-01" };
    expect(keys.next(rowContent(exported, "create"))).toBe(`${expected}-2`);
    const update = new ItemKeys("workers", "update");
    expect(update.next(rowContent({ id: "7", name: "Zoë €", trade_id: 3 }, "update"))).toBe(
      "erp-row-4f3e9746f14df6cd6eecd631b22abc24251a08b597ccebbde3b6e0d8d2133593-1",
    );
  });
});

describe("import()", () => {
  test("one result per row in the rows' order, in batches of batchSize, each item with its key", async () => {
    const { fetch, seen } = batchServer();
    const run = clientWith(fetch).workers.import(rowsOf(25), { batchSize: 10 });
    const results = [];
    for await (const result of run) results.push(result);
    expect(results.map((r) => r.row.name)).toEqual(rowsOf(25).map((row) => row.name));
    expect(results.filter((r) => r.status === "rejected").map((r) => r.error?.code)).toEqual([
      "validation_failed",
      "validation_failed",
    ]);
    const posts = seen.filter((request) => request.method === "POST");
    expect(posts.map((request) => (request.body as { items: unknown[] }).items.length)).toEqual([
      10, 10, 5,
    ]);
    const keys = posts.flatMap((request) => (request.body as { item_keys: string[] }).item_keys);
    expect(new Set(keys).size).toBe(25);
    expect(run.summary).toMatchObject({ rows: 25, created: 23, rejected: 2, stopped: null });
  });

  test("a journal spares re-sending the rows that went through; refused rows are sent again", async () => {
    const journal = new MemoryJournal();
    const first = batchServer();
    await clientWith(first.fetch).workers.import(rowsOf(20), { journal }).done();
    expect(journal.size).toBe(18);
    const second = batchServer();
    const summary = await clientWith(second.fetch).workers.import(rowsOf(20), { journal }).done();
    expect(summary).toMatchObject({ rows: 20, replayed: 18, rejected: 2, created: 0 });
    expect((second.seen[0]!.body as { items: { name: string }[] }).items).toEqual([
      { name: "bad" },
      { name: "bad" },
    ]);
  });

  test("the signal stops the import: the rows read and not answered are not_imported", async () => {
    const { fetch } = batchServer();
    const controller = new AbortController();
    const run = clientWith(fetch).workers.import(rowsOf(1_000), {
      batchSize: 10,
      signal: controller.signal,
    });
    let seen = 0;
    for await (const _ of run) if (++seen === 30) controller.abort();
    const summary = run.summary;
    expect(summary.stopped).toBe("aborted");
    expect(summary.rows).toBeLessThan(1_000);
    expect(summary.rows).toBe(summary.created + summary.rejected + summary.notImported);
  });

  test("atomic: a batch with a refused row writes none; its others are not_imported, the next goes on", async () => {
    const { fetch, seen } = fakeFetch((request) => {
      if (request.method === "GET") return json(200, { data: { quotas: {} } });
      const items = (request.body as { items: { name: string }[] }).items;
      const results = items.map((item, index) =>
        item.name === "bad"
          ? {
              index,
              status: 422,
              id: null,
              error: { status: 422, code: "validation_failed", detail: "bad", errors: [] },
            }
          : { index, status: 201, id: null, action: "created" },
      );
      if (results.some((result) => result.error))
        return problem(422, "batch_failed", {}, { data: { results } });
      return json(200, {
        data: { results: results.map((result, i) => ({ ...result, id: i + 1 })) },
      });
    });
    const rows = [{ name: "A" }, { name: "bad" }, { name: "C" }, { name: "D" }];
    const statuses = [];
    const run = clientWith(fetch).workers.import(rows, { atomic: true, batchSize: 2 });
    for await (const result of run) statuses.push([result.status, result.error?.code]);
    expect(statuses).toEqual([
      ["not_imported", "batch_failed"],
      ["rejected", "validation_failed"],
      ["created", undefined],
      ["created", undefined],
    ]);
    expect(seen.filter((r) => r.method === "POST").every((r) => (r.body as any).atomic)).toBe(true);
    expect(run.summary.stopped).toBeNull();
  });

  test("an answer that says no request is left waits for the next window", async () => {
    const { fetch } = batchServer({ "ratelimit-remaining": "0", "ratelimit-reset": "1" });
    const waits: number[] = [];
    const started = performance.now();
    await clientWith(fetch)
      .workers.import(rowsOf(3), { onRateLimit: (ms) => waits.push(ms) })
      .done();
    expect(waits).toEqual([1000]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
  });
});
