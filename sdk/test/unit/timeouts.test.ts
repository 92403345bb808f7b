// Timeouts and cancellation: timeoutMs bounds each attempt, a caller's signal stops the call at once.
import { describe, expect, test } from "bun:test";
import { ApiConnectionError, ApiTimeoutError, ApiUserAbortError } from "../../mod.ts";
import {
  clientWith,
  fakeFetch,
  json,
  problem,
  rejectionOf,
  type SeenRequest,
} from "../helpers/fake-fetch.ts";

/** A server that never answers, but notices when the request is aborted. */
const hang = (request: SeenRequest) =>
  new Promise<Response>((_, reject) =>
    request.signal?.addEventListener("abort", () => reject(request.signal?.reason)),
  );

describe("timeouts", () => {
  test("an attempt slower than timeoutMs fails with ApiTimeoutError after the retries", async () => {
    const { fetch, seen } = fakeFetch(hang);
    const error = await rejectionOf(
      clientWith(fetch, { timeoutMs: 50, maxRetries: 1 }).projects.get(1),
    );
    expect(error).toBeInstanceOf(ApiTimeoutError);
    expect(error).toBeInstanceOf(ApiConnectionError);
    expect(error.code).toBe("timeout");
    expect(seen).toHaveLength(2);
  });

  test("a per-call timeoutMs overrides the client's", async () => {
    const { fetch } = fakeFetch(hang);
    const started = performance.now();
    await rejectionOf(
      clientWith(fetch, { timeoutMs: 60_000 }).projects.get(1, { timeoutMs: 30, maxRetries: 0 }),
    );
    expect(performance.now() - started).toBeLessThan(1000);
  });

  test("a timeout that strikes while the body streams in also counts", async () => {
    // Like a real fetch, the body stream errors when the request's signal aborts.
    const { fetch } = fakeFetch((request) => {
      const body = new ReadableStream({
        start(stream) {
          stream.enqueue(new TextEncoder().encode('{"data":'));
          request.signal?.addEventListener("abort", () => stream.error(request.signal?.reason));
        },
      });
      return new Response(body, { status: 200 });
    });
    expect(
      await rejectionOf(clientWith(fetch, { timeoutMs: 50, maxRetries: 0 }).projects.get(1)),
    ).toBeInstanceOf(ApiTimeoutError);
  });
});

describe("cancellation", () => {
  test("aborting the signal stops an in-flight request with ApiUserAbortError, without retrying", async () => {
    const { fetch, seen } = fakeFetch(hang);
    const controller = new AbortController();
    const call = clientWith(fetch).projects.create(
      { name: "Depot" },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error("user left")), 20);
    const error = await rejectionOf(call);
    expect(error).toBeInstanceOf(ApiUserAbortError);
    expect((error.cause as Error).message).toBe("user left");
    expect(seen).toHaveLength(1);
  });

  test("aborting during the wait before a retry ends the wait at once", async () => {
    const { fetch, seen } = fakeFetch(() =>
      problem(503, "database_unavailable", { "retry-after": "30" }),
    );
    const started = performance.now();
    const error = await rejectionOf(
      clientWith(fetch).projects.get(1, { signal: AbortSignal.timeout(50) }),
    );
    expect(error).toBeInstanceOf(ApiUserAbortError);
    expect(seen).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  test("an already aborted signal sends nothing", async () => {
    const { fetch, seen } = fakeFetch(() => json(200, { data: {} }));
    expect(
      await rejectionOf(clientWith(fetch).projects.get(1, { signal: AbortSignal.abort() })),
    ).toBeInstanceOf(ApiUserAbortError);
    expect(seen).toHaveLength(0);
  });
});

describe("events.follow()", () => {
  test(
    "a long-poll may take its wait beyond the client's timeoutMs; aborting it mid-wait ends " +
      "the iteration without an error",
    async () => {
      const controller = new AbortController();
      const { fetch, seen } = fakeFetch(
        // The server holds the first long-poll past the client's 50 ms, then answers one event.
        () =>
          Bun.sleep(200).then(() =>
            json(200, {
              data: [{ id: "evt_1", type: "client.created" }],
              meta: { next_cursor: "evt_1", limit: 100 },
            }),
          ),
        (request) => {
          setTimeout(() => controller.abort(), 20);
          return hang(request);
        },
      );
      const followed = [];
      for await (const event of clientWith(fetch, { timeoutMs: 50 }).events.follow({
        waitSeconds: 5,
        signal: controller.signal,
      }))
        followed.push(event.id);
      expect(followed).toEqual(["evt_1"]);
      expect(
        seen.map((request) => [
          request.url.searchParams.get("after"),
          request.url.searchParams.get("wait"),
        ]),
      ).toEqual([
        ["latest", "5"],
        ["evt_1", "5"],
      ]);
    },
  );
});
