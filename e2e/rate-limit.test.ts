// Rate limits (docs/limits.md): requests a minute per company (plan default, admin override),
// RateLimit-* headers on data responses, 429 rate_limited with Retry-After, one budget
// shared by every server process.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { RowDataPacket } from "mysql2";
import { Api, type ApiResponse } from "@erp/testing/api";
import { newCompany, testDb } from "@erp/testing/company";
import { startServer } from "@erp/testing/server";
import { freshRateWindow } from "@erp/testing/rate-window";
import { useServer } from "@erp/testing/suite";

// Server starts, crash recovery and waits for a fresh rate window outlast bun's 5 s default
// (bunfig.toml has no test timeout setting).
setDefaultTimeout(30_000);

const suite = useServer();

const limits = (response: ApiResponse) => ({
  limit: response.headers.get("ratelimit-limit"),
  remaining: response.headers.get("ratelimit-remaining"),
});

function expectReset(response: ApiResponse, header = "ratelimit-reset"): void {
  const seconds = Number(response.headers.get(header));
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(60);
}

describe("rate limits", () => {
  test("a limited plan's data responses carry RateLimit-Limit, -Remaining and -Reset, errors included", async () => {
    await freshRateWindow();
    const api = suite.api.as((await newCompany({ plan: "free" })).token);
    const first = await api.get("/v1/clients");
    expect(limits(first)).toEqual({ limit: "120", remaining: "119" });
    expectReset(first);
    // Refused: given back before the answer, whose header shows it.
    const missing = await api.get("/v1/clients/999999999");
    expect(missing.status).toBe(404);
    expect(limits(missing)).toEqual({ limit: "120", remaining: "119" });
    expectReset(missing);
    const invalid = await api.post("/v1/clients", {});
    expect(invalid.status).toBe(422);
    expect(limits(invalid)).toEqual({ limit: "120", remaining: "119" });
  });

  test(
    "400, 404, 409, 412, 415 and 422 leave RateLimit-Remaining where the last success left " +
      "it; a replay's own header shows its refund",
    async () => {
      await freshRateWindow();
      const api = suite.api.as((await newCompany({ plan: "free" })).token);
      const remaining = (response: ApiResponse) =>
        Number(response.headers.get("ratelimit-remaining"));
      const keyed = (key: string) => ({ headers: { "idempotency-key": key } });
      const created = await api.post(
        "/v1/clients",
        { name: "Kept", external_id: "k-1" },
        keyed("a"),
      );
      expect(created.status).toBe(201);
      const after = remaining(created);
      expect(after).toBe(119);
      const refusals: [string, ApiResponse][] = [
        ["400 invalid_query", await api.get("/v1/clients?no_such_parameter=1")],
        [
          "400 malformed_json",
          await api.request("POST", "/v1/clients", {
            rawBody: "{not json",
            headers: { "content-type": "application/json" },
          }),
        ],
        ["404 not_found", await api.get("/v1/clients/999999999")],
        ["404 not_found (write)", await api.patch("/v1/clients/999999999", { name: "x" })],
        [
          "409 unique_violation",
          await api.post("/v1/clients", { name: "Again", external_id: "k-1" }),
        ],
        [
          "409 idempotency_key_reuse",
          await api.post("/v1/clients", { name: "Other body" }, keyed("a")),
        ],
        [
          "412 precondition_failed",
          await api.patch(
            `/v1/clients/${created.body.data.id}`,
            { name: "x" },
            { headers: { "if-match": '"stale"' } },
          ),
        ],
        [
          "415 unsupported_media_type",
          await api.request("POST", "/v1/clients", {
            rawBody: "name=x",
            headers: { "content-type": "text/plain" },
          }),
        ],
        ["422 validation_failed", await api.post("/v1/clients", { name: "" })],
      ];
      for (const [what, response] of refusals) {
        expect([what, response.status]).toEqual([what, Number(what.slice(0, 3))]);
        expect([what, response.body.code]).toEqual([what, what.split(" ")[1]]);
        expect([what, remaining(response)]).toEqual([what, after]);
      }
      const replay = await api.post(
        "/v1/clients",
        { name: "Kept", external_id: "k-1" },
        keyed("a"),
      );
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(remaining(replay)).toBe(after);
      // Counting goes on from there: a success costs one.
      expect(remaining(await api.get("/v1/clients"))).toBe(after - 1);
    },
  );

  test("over the limit is 429 rate_limited with Retry-After, and the write does not run", async () => {
    await freshRateWindow();
    const api = suite.api.as((await newCompany({ plan: "pro", rateLimit: 3 })).token);
    for (let i = 0; i < 3; i += 1) expect((await api.get("/v1/projects")).status).toBe(200);
    const refused = await api.post(
      "/v1/projects",
      { name: "Too fast" },
      { headers: { "idempotency-key": "too-fast" } },
    );
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toStartWith("application/problem+json");
    expect(refused.body.code).toBe("rate_limited");
    expect(limits(refused)).toEqual({ limit: "3", remaining: "0" });
    expectReset(refused, "retry-after");
    expect(refused.headers.get("retry-after")).toBe(refused.headers.get("ratelimit-reset"));
    expect((await api.get("/healthz", { token: null })).status).toBe(200);
    const [rows] = await testDb().pool.query<RowDataPacket[]>(
      "SELECT COUNT(*) AS n FROM projects WHERE name = 'Too fast'",
    );
    expect(Number(rows[0]!.n)).toBe(0);
  });

  test(
    "the budget is shared by every server process, each learning the others' counts within " +
      "about a second",
    async () => {
      await freshRateWindow();
      const second = await startServer();
      try {
        const { token } = await newCompany({ plan: "free", rateLimit: 10 });
        const a = suite.api.as(token);
        const b = new Api(second.baseUrl, token);
        for (let i = 0; i < 6; i += 1) expect((await a.get("/v1/workers")).status).toBe(200);
        // Each process writes its own count about once a second and reads the others'.
        await Bun.sleep(2_200);
        const responses = [];
        for (let i = 0; i < 6; i += 1) responses.push(await b.get("/v1/workers"));
        expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 429, 429]);
        expect(
          responses.slice(0, 4).map((r) => Number(r.headers.get("ratelimit-remaining"))),
        ).toEqual([3, 2, 1, 0]);
        await Bun.sleep(2_200);
        expect((await a.get("/v1/workers")).status).toBe(429);
      } finally {
        await second.stop();
      }
    },
  );

  test("replays and refused requests do not count", async () => {
    await freshRateWindow();
    const { token } = await newCompany({ plan: "free", rateLimit: 4 });
    const api = suite.api.as(token);
    const keyed = (key: string) => ({ headers: { "idempotency-key": key } });
    for (const key of ["r1", "r2"])
      expect((await api.post("/v1/clients", { name: key }, keyed(key))).status).toBe(201);
    for (let i = 0; i < 5; i += 1) {
      const replay = await api.post("/v1/clients", { name: "r1" }, keyed("r1"));
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
    }
    expect((await api.get("/v1/clients")).headers.get("ratelimit-remaining")).toBe("1");
    expect((await api.get("/v1/clients")).status).toBe(200);
    for (let i = 0; i < 3; i += 1) expect((await api.get("/v1/clients")).status).toBe(429);
    const [rows] = await testDb().pool.query<RowDataPacket[]>(
      "SELECT COUNT(*) AS n FROM clients WHERE name IN ('r1', 'r2')",
    );
    expect(Number(rows[0]!.n)).toBe(2);
  });

  test("unlimited plans get no RateLimit headers unless an admin sets a limit", async () => {
    const unlimited = suite.api.as((await newCompany({ plan: "enterprise" })).token);
    const open = await unlimited.get("/v1/projects");
    expect(open.status).toBe(200);
    expect(open.headers.get("ratelimit-limit")).toBeNull();
    const capped = suite.api.as((await newCompany({ plan: "enterprise", rateLimit: 7 })).token);
    expect(limits(await capped.get("/v1/projects"))).toEqual({ limit: "7", remaining: "6" });
  });

  test("requests without a valid token and the health check are neither limited nor labelled", async () => {
    const health = await suite.api.get("/healthz", { token: null });
    expect(health.headers.get("ratelimit-limit")).toBeNull();
    const anonymous = await suite.api.get("/v1/projects", { token: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("ratelimit-limit")).toBeNull();
  });
});
