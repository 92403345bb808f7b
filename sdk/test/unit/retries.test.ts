// Retries: which failures are retried, how long the SDK waits, and that a write keeps its idempotency key.
import { describe, expect, test } from "bun:test";
import {
  ApiConnectionError,
  ConflictError,
  InternalServerError,
  RateLimitError,
  ValidationError,
} from "../../mod.ts";
import { retryDelayMs } from "../../src/core/retries.ts";
import { clientWith, fakeFetch, json, problem, rejectionOf } from "../helpers/fake-fetch.ts";

const created = () => json(201, { data: { id: 5, created: true, dry_run: false } });
const now = { "retry-after": "0" };

describe("automatic retries", () => {
  test("a create retried after a 503 sends the same generated Idempotency-Key every time", async () => {
    const { fetch, seen } = fakeFetch(
      () => problem(503, "database_unavailable", now),
      () => problem(502, "bad_gateway", now),
      created,
    );
    const result = await clientWith(fetch).projects.create({ name: "Depot" });
    expect(result).toEqual({ id: 5, created: true, dry_run: false });
    expect(seen).toHaveLength(3);
    const keys = seen.map((r) => r.headers.get("idempotency-key"));
    expect(keys[0]).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(new Set(keys).size).toBe(1);
  });

  test("a given idempotencyKey is sent as is, on every attempt", async () => {
    const { fetch, seen } = fakeFetch(() => problem(500, "internal", now), created);
    await clientWith(fetch).projects.create({ name: "Depot" }, { idempotencyKey: "import-row-7" });
    expect(seen.map((r) => r.headers.get("idempotency-key"))).toEqual([
      "import-row-7",
      "import-row-7",
    ]);
  });

  test("two separate calls get two different keys", async () => {
    const { fetch, seen } = fakeFetch(created);
    const erp = clientWith(fetch);
    await erp.projects.create({ name: "A" });
    await erp.projects.create({ name: "A" });
    expect(seen[0]!.headers.get("idempotency-key")).not.toBe(
      seen[1]!.headers.get("idempotency-key"),
    );
  });

  test("409 idempotency_in_progress and 429 are retried; other 409s are not", async () => {
    const inProgress = fakeFetch(
      () => problem(409, "idempotency_in_progress", now),
      () => problem(429, "rate_limited", now),
      created,
    );
    expect((await clientWith(inProgress.fetch).workers.create({ name: "Ann" })).id).toBe(5);
    expect(inProgress.seen).toHaveLength(3);

    const transition = fakeFetch(() => problem(409, "invalid_transition"));
    const error = await rejectionOf(
      clientWith(transition.fetch).projects.update(1, { status: "COMPLETED" }),
    );
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.code).toBe("invalid_transition");
    expect(transition.seen).toHaveLength(1);
  });

  test("a 422 is never retried", async () => {
    const { fetch, seen } = fakeFetch(() => problem(422, "validation_failed"));
    await expect(clientWith(fetch).projects.create({ name: "" })).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect(seen).toHaveLength(1);
  });

  test("maxRetries bounds the attempts: the client's default is 2, a call can override it", async () => {
    const always = fakeFetch(() => problem(500, "internal", now));
    await expect(clientWith(always.fetch).projects.get(1)).rejects.toBeInstanceOf(
      InternalServerError,
    );
    expect(always.seen).toHaveLength(3);

    const once = fakeFetch(() => problem(500, "internal", now));
    await clientWith(once.fetch)
      .projects.get(1, { maxRetries: 0 })
      .catch(() => {});
    expect(once.seen).toHaveLength(1);
  });

  test("network errors are retried with backoff, then surface as ApiConnectionError", async () => {
    const { fetch, seen } = fakeFetch(() => {
      throw new TypeError("fetch failed");
    });
    const started = performance.now();
    const error = await rejectionOf(clientWith(fetch, { maxRetries: 1 }).clients.list().toArray());
    expect(error).toBeInstanceOf(ApiConnectionError);
    expect(error.message).toContain("fetch failed");
    expect(seen).toHaveLength(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(370);
  });

  test("Retry-After is honoured before the next attempt", async () => {
    const { fetch, seen } = fakeFetch(
      () => problem(429, "rate_limited", { "retry-after": "1" }),
      created,
    );
    const started = performance.now();
    await clientWith(fetch).projects.create({ name: "Depot" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
    expect(seen).toHaveLength(2);
  });

  test("a Retry-After beyond a minute is not waited out: the RateLimitError reaches the caller", async () => {
    const { fetch, seen } = fakeFetch(() =>
      problem(429, "rate_limited", { "retry-after": "3600" }),
    );
    const error = await rejectionOf(clientWith(fetch).projects.list().toArray());
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.headers.get("retry-after")).toBe("3600");
    expect(seen).toHaveLength(1);
  });
});

describe("retry delays", () => {
  const none = new Headers();
  test("back off exponentially from 0.5 s up to 8 s, with up to 25% jitter", () => {
    expect([0, 1, 2, 3, 4, 5].map((n) => retryDelayMs(n, none, () => 0))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000,
    ]);
    expect(retryDelayMs(0, none, () => 1)).toBe(375);
  });

  test("Retry-After wins, in seconds or as an HTTP date", () => {
    expect(retryDelayMs(3, new Headers({ "retry-after": "2" }))).toBe(2000);
    const inFiveSeconds = new Date(Date.now() + 5000).toUTCString();
    expect(retryDelayMs(0, new Headers({ "retry-after": inFiveSeconds }))).toBeGreaterThan(3000);
    expect(retryDelayMs(0, new Headers({ "retry-after": "120" }))).toBeUndefined();
  });
});
