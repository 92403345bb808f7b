// The uniform CRUD (docs/api.md) for all six resources, over HTTP on a real database.
import { beforeAll, describe, expect, test } from "bun:test";
import { create, eventually } from "@erp/testing/api";
import { newCompany, newToken, revoke, type TestCompany } from "@erp/testing/company";
import { SAMPLES } from "@erp/testing/samples";
import { LOOKUPS } from "@erp/server/registry";
import { useServer } from "@erp/testing/suite";

const suite = useServer();
let company: TestCompany;

beforeAll(async () => {
  company = await newCompany();
});

const api = () => suite.api.as(company.token);

describe.each(SAMPLES)("$resource", (sample) => {
  const path = `/v1/${sample.resource}`;

  test("create answers 201 with Location and {id, created, dry_run}", async () => {
    const response = await api().post(path, sample.create);
    expect(response.status).toBe(201);
    const { id } = response.body.data;
    expect(response.body.data).toEqual({ id, created: true, dry_run: false });
    expect(Number.isInteger(id)).toBe(true);
    expect(response.headers.get("location")).toBe(`${path}/${id}`);
  });

  test("get returns every field with defaults, timestamps and a strong ETag", async () => {
    const id = await create(api(), path, sample.create);
    const response = await api().get(`${path}/${id}`);
    expect(response.status).toBe(200);
    const record = response.body.data;
    expect(record.id).toBe(id);
    expect(record[sample.title]).toBe(sample.create[sample.title]);
    expect(record.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(record.updated_at).toBe(record.created_at);
    expect(typeof record.status).toBe("string");
    expect(record.status).toBe(record.status.toUpperCase());
    expect(record).not.toHaveProperty("company_id");
    expect(record).not.toHaveProperty("deleted_at");
    expect(response.headers.get("etag")).toMatch(/^"[^"]+"$/);
  });

  test("money comes back as a string with two decimals", async () => {
    const id = await create(api(), path, sample.create);
    const { body } = await api().get(`${path}/${id}`);
    for (const [field, value] of Object.entries(sample.create)) {
      if (/amount|rate/.test(field)) expect(body.data[field]).toBe(Number(value).toFixed(2));
    }
  });

  test("PATCH merges: only the fields sent change, and changes lists from/to", async () => {
    const id = await create(api(), path, sample.create);
    const before = (await api().get(`${path}/${id}`)).body.data;
    const response = await api().patch(`${path}/${id}`, sample.update);
    expect(response.status).toBe(200);
    const { data } = response.body;
    expect(data.id).toBe(id);
    expect(data.updated).toBe(true);
    expect(data.dry_run).toBe(false);
    expect(Object.keys(data.changes).sort()).toEqual(Object.keys(sample.update).sort());
    for (const field of Object.keys(sample.update))
      expect(data.changes[field].from).toEqual(before[field]);
    const after = (await api().get(`${path}/${id}`)).body.data;
    expect(data.record).toEqual(after);
    for (const [field, value] of Object.entries(before)) {
      if (!(field in sample.update) && field !== "updated_at") expect(after[field]).toEqual(value);
    }
  });

  test("DELETE is soft: the record is gone from get, list and a second delete", async () => {
    const id = await create(api(), path, sample.create);
    const response = await api().delete(`${path}/${id}`);
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id, deleted: true, dry_run: false, mode: "soft" });
    expect(response.body.data.would_delete).toContainEqual({ resource: sample.resource, id });
    expect((await api().get(`${path}/${id}`)).status).toBe(404);
    const listed = await api().get(`${path}?limit=100&fields=id`);
    expect(listed.body.data.map((row: { id: number }) => row.id)).not.toContain(id);
    expect((await api().delete(`${path}/${id}`)).body.code).toBe("not_found");
  });

  test("create without the title field, or with it empty, is a 422 naming it", async () => {
    const { [sample.title]: _title, ...rest } = sample.create;
    const response = await api().post(path, rest);
    expect(response.status).toBe(422);
    expect(response.headers.get("content-type")).toContain("application/problem+json");
    expect(response.body.errors).toContainEqual(
      expect.objectContaining({ field: sample.title, code: "required" }),
    );
    const empty = await api().post(path, { ...rest, [sample.title]: "" });
    expect(empty.body.errors).toContainEqual(
      expect.objectContaining({ field: sample.title, code: "too_short" }),
    );
  });

  test("another company's record is a 404 on every route", async () => {
    const id = await create(api(), path, sample.create);
    const other = suite.api.as((await newCompany()).token);
    for (const response of [
      await other.get(`${path}/${id}`),
      await other.patch(`${path}/${id}`, sample.update),
      await other.delete(`${path}/${id}`),
      await other.delete(`${path}/${id}?dry_run=1`),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body.code).toBe("not_found");
    }
    const listed = await other.get(`${path}?limit=100`);
    expect(listed.body.data.map((row: { id: number }) => row.id)).not.toContain(id);
    expect((await api().get(`${path}/${id}`)).body.data).toMatchObject({
      id,
      ...{ [sample.title]: sample.create[sample.title] },
    });
  });

  if (sample.addon !== "api") {
    test(`needs the ${sample.addon} add-on: 402 feature_off on every route`, async () => {
      const basic = suite.api.as((await newCompany({ addons: ["api"] })).token);
      for (const response of [
        await basic.get(path),
        await basic.get(`${path}/1`),
        await basic.post(path, sample.create),
        await basic.patch(`${path}/1`, sample.update),
        await basic.delete(`${path}/1`),
      ]) {
        expect(response.status).toBe(402);
        expect(response.body.code).toBe("feature_off");
      }
    });
  }
});

describe("listing", () => {
  test("the SPEC paging rule visits every record exactly once, in id order", async () => {
    const mine = suite.api.as((await newCompany()).token);
    const created: number[] = [];
    for (let index = 0; index < 23; index++)
      created.push(await create(mine, "/v1/clients", { name: `Client ${index}` }));
    const first = await mine.get("/v1/clients?limit=5");
    const total = first.body.meta.total;
    expect(total).toBe(23);
    const seen: number[] = [];
    for (let offset = 0; offset < total; offset += 5) {
      const page = await mine.get(`/v1/clients?limit=5&offset=${offset}`);
      expect(page.body.meta).toEqual({ total, limit: 5, offset });
      seen.push(...page.body.data.map((row: { id: number }) => row.id));
    }
    expect(seen).toEqual(created);
  });

  test("limit defaults to 50 and is capped at 100", async () => {
    expect((await api().get("/v1/projects")).body.meta.limit).toBe(50);
    expect((await api().get("/v1/projects?limit=500")).body.meta.limit).toBe(100);
  });

  test(
    "bad paging values, unknown parameters, unsupported filters and unknown fields are 400 " +
      "invalid_query",
    async () => {
      for (const query of [
        "limit=0",
        "limit=abc",
        "limit=1.5",
        "offset=-1",
        "colour=red",
        "trade_id=1",
        "fields=name,nope",
        "status=DONE",
        "client_id=x",
        "limit=1&limit=2",
      ]) {
        const response = await api().get(`/v1/projects?${query}`);
        expect(response.status, query).toBe(400);
        expect(response.body.code, query).toBe("invalid_query");
      }
      expect((await api().get("/v1/projects/1?limit=1")).body.code).toBe("invalid_query");
    },
  );

  test("q is a case-insensitive substring match where % and _ are literal", async () => {
    const mine = suite.api.as((await newCompany()).token);
    await create(mine, "/v1/clients", { name: "Acme 100% Steel" });
    await create(mine, "/v1/clients", { name: "acme_builders" });
    await create(mine, "/v1/clients", { name: "Other", email: "info@ACME.example" });
    const names = async (q: string) =>
      (await mine.get(`/v1/clients?q=${encodeURIComponent(q)}`)).body.data
        .map((row: { name: string }) => row.name)
        .sort();
    expect(await names("ACME")).toEqual(["Acme 100% Steel", "Other", "acme_builders"]);
    expect(await names("0%")).toEqual(["Acme 100% Steel"]);
    expect(await names("e_b")).toEqual(["acme_builders"]);
    expect(await names("%")).toEqual(["Acme 100% Steel"]);
  });

  test("status is filtered case-insensitively and resource filters narrow the list", async () => {
    const mine = suite.api.as((await newCompany()).token);
    const clientA = await create(mine, "/v1/clients", { name: "A" });
    const clientB = await create(mine, "/v1/clients", { name: "B" });
    const p1 = await create(mine, "/v1/projects", {
      name: "P1",
      client_id: clientA,
      status: "ACTIVE",
    });
    const p2 = await create(mine, "/v1/projects", { name: "P2", client_id: clientB });
    const ids = async (query: string) =>
      (await mine.get(`/v1/projects?${query}`)).body.data.map((row: { id: number }) => row.id);
    expect(await ids("status=active")).toEqual([p1]);
    expect(await ids("status=DRAFT")).toEqual([p2]);
    expect(await ids(`client_id=${clientB}`)).toEqual([p2]);
    const trade = (await mine.get("/v1/trades")).body.data[1].id;
    const worker = await create(mine, "/v1/workers", { name: "W", trade_id: trade });
    await create(mine, "/v1/workers", { name: "V" });
    expect(
      (await mine.get(`/v1/workers?trade_id=${trade}`)).body.data.map(
        (row: { id: number }) => row.id,
      ),
    ).toEqual([worker]);
    const category = (await mine.get("/v1/equipment-categories")).body.data[0].id;
    const machine = await create(mine, "/v1/equipment", { name: "Crane", category_id: category });
    expect(
      (await mine.get(`/v1/equipment?category_id=${category}`)).body.data.map(
        (row: { id: number }) => row.id,
      ),
    ).toEqual([machine]);
  });

  test("fields returns only the fields asked for, plus id, on lists and on one record", async () => {
    const id = await create(api(), "/v1/projects", { name: "Sparse", code: "SP-1" });
    const one = await api().get(`/v1/projects/${id}?fields=code`);
    expect(one.body.data).toEqual({ id, code: "SP-1" });
    const list = await api().get("/v1/projects?fields=name,status&limit=1");
    expect(Object.keys(list.body.data[0]).sort()).toEqual(["id", "name", "status"]);
  });
});

describe("conditional reads", () => {
  test("If-None-Match with the ETag answers 304 with an empty body until the record changes", async () => {
    const id = await create(api(), "/v1/clients", { name: "Cached" });
    const first = await api().get(`/v1/clients/${id}`);
    const etag = first.headers.get("etag")!;
    const again = await api().get(`/v1/clients/${id}`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    await api().patch(`/v1/clients/${id}`, { name: "Changed" });
    const changed = await api().get(`/v1/clients/${id}`, { headers: { "if-none-match": etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
  });

  test("lists carry an ETag that changes when a record is added", async () => {
    const mine = suite.api.as((await newCompany()).token);
    const before = await mine.get("/v1/clients");
    const etag = before.headers.get("etag")!;
    expect((await mine.get("/v1/clients", { headers: { "if-none-match": etag } })).status).toBe(
      304,
    );
    await create(mine, "/v1/clients", { name: "New" });
    expect((await mine.get("/v1/clients", { headers: { "if-none-match": etag } })).status).toBe(
      200,
    );
  });
});

describe("authentication", () => {
  test("a missing, malformed, unknown or revoked token is 401 with WWW-Authenticate", async () => {
    const token = await newToken(company.companyId);
    expect((await suite.api.as(token).get("/v1/clients")).status).toBe(200);
    await revoke(token);
    // Authentication may be cached for up to 5 s (docs/limits.md).
    expect((await eventually(() => suite.api.as(token).get("/v1/clients"), 401)).status).toBe(401);
    for (const headers of [
      {} as Record<string, string>,
      { authorization: "Basic abc" },
      { authorization: "Bearer erp_nope" },
      { authorization: `Bearer ${token}` },
    ]) {
      const response = await suite.api.request("GET", "/v1/clients", { headers, token: null });
      expect(response.status).toBe(401);
      expect(response.body.code).toBe("unauthorized");
      expect(response.headers.get("www-authenticate")).toContain("Bearer");
    }
  });

  test("401 comes before anything about the body", async () => {
    const response = await suite.api.request("POST", "/v1/projects", {
      rawBody: "{not json",
      headers: { "content-type": "application/json" },
      token: null,
    });
    expect(response.status).toBe(401);
  });

  test("a company without the API add-on gets 402 feature_off everywhere", async () => {
    const none = suite.api.as((await newCompany({ addons: [] })).token);
    for (const path of ["/v1/projects", "/v1/workers", "/v1/clients", "/v1/trades"]) {
      const response = await none.get(path);
      expect(response.status).toBe(402);
      expect(response.body.code).toBe("feature_off");
    }
  });
});

describe("errors", () => {
  test("every error is an RFC 9457 problem with code and request_id", async () => {
    const response = await api().get("/v1/projects/999999999");
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toContain("application/problem+json");
    expect(response.body).toMatchObject({
      type: "about:blank",
      title: "Not Found",
      status: 404,
      code: "not_found",
    });
    expect(typeof response.body.detail).toBe("string");
    expect(response.body.request_id).toBe(response.headers.get("x-request-id"));
  });

  test("X-Request-Id is echoed when sent and generated otherwise", async () => {
    expect(
      (await api().get("/v1/clients", { headers: { "x-request-id": "trace-123" } })).headers.get(
        "x-request-id",
      ),
    ).toBe("trace-123");
    expect((await api().get("/v1/clients")).headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("a non-numeric id is 404", async () => {
    expect((await api().get("/v1/projects/abc")).body.code).toBe("not_found");
  });

  test("unknown paths are 404 route_not_found and unknown methods 405 with Allow", async () => {
    const missing = await api().get("/v1/nothing-here");
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("route_not_found");
    const wrong = await api().request("PUT", "/v1/projects");
    expect(wrong.status).toBe(405);
    expect(wrong.body.code).toBe("method_not_allowed");
    expect(wrong.headers.get("allow")).toContain("POST");
  });

  test("a body that is not JSON is 400 malformed_json; another media type is 415; over 1 MiB is 413", async () => {
    const malformed = await api().request("POST", "/v1/clients", {
      rawBody: "{nope",
      headers: { "content-type": "application/json" },
    });
    expect([malformed.status, malformed.body.code]).toEqual([400, "malformed_json"]);
    const text = await api().request("POST", "/v1/clients", {
      rawBody: "name=x",
      headers: { "content-type": "text/plain" },
    });
    expect([text.status, text.body.code]).toEqual([415, "unsupported_media_type"]);
    const huge = await api().post("/v1/clients", { name: "x".repeat(1024 * 1024) });
    expect([huge.status, huge.body.code]).toEqual([413, "payload_too_large"]);
  });

  test("422 lists every failing field at once: unknown, read-only, wrong type, too long", async () => {
    const response = await api().post("/v1/projects", {
      name: "x".repeat(201),
      id: 5,
      colour: "red",
      billing_mode: "HOURLY",
      client_id: "7",
    });
    expect(response.status).toBe(422);
    const fields = response.body.errors.map((error: { field: string }) => error.field).sort();
    expect(fields).toEqual(["billing_mode", "client_id", "colour", "id", "name"]);
  });

  test("422 lists the checks beyond types together: money decimals, dates, references", async () => {
    const response = await api().post("/v1/projects", {
      name: "Checks",
      budget_amount: 1.234,
      start_date: "2026-05-02",
      end_date: "2026-05-01",
      client_id: 999999999,
    });
    expect(response.status).toBe(422);
    const codes = Object.fromEntries(
      response.body.errors.map((error: { field: string; code: string }) => [
        error.field,
        error.code,
      ]),
    );
    expect(codes).toEqual({
      budget_amount: "invalid_money",
      end_date: "date_order",
      client_id: "unknown_reference",
    });
    const impossible = await api().post("/v1/projects", { name: "Feb", start_date: "2026-02-30" });
    expect(impossible.status).toBe(422);
  });

  test("refused writes change nothing", async () => {
    const before = (await api().get("/v1/projects?limit=1")).body.meta.total;
    await api().post("/v1/projects", { name: `${"x".repeat(300)}` });
    await api().post("/v1/projects", { name: "ok", client_id: 999999999 });
    expect((await api().get("/v1/projects?limit=1")).body.meta.total).toBe(before);
  });
});

describe("lookups and health", () => {
  test("every lookup is seeded per company with its definition's names, in the list shape", async () => {
    const other = suite.api.as((await newCompany()).token);
    expect(LOOKUPS.length).toBeGreaterThan(0);
    for (const lookup of LOOKUPS) {
      const path = `/v1/${lookup.name}?limit=100`;
      const [mine, theirs] = [await api().get(path), await other.get(path)];
      expect(mine.status, mine.text).toBe(200);
      expect(mine.body.meta.total, lookup.name).toBe(lookup.lookup!.seed.length);
      expect(mine.body.data.map((row: { name: string }) => row.name)).toEqual(lookup.lookup!.seed);
      for (const row of mine.body.data)
        expect(Object.keys(row).sort()).toEqual([
          "created_at",
          "external_id",
          "id",
          "name",
          "updated_at",
        ]);
      // The other company's rows are its own: the same names, none of the same records.
      expect(theirs.body.data.map((row: { name: string }) => row.name)).toEqual(
        lookup.lookup!.seed,
      );
      const ids = new Set(mine.body.data.map((row: { id: number }) => row.id));
      expect(theirs.body.data.filter((row: { id: number }) => ids.has(row.id))).toEqual([]);
    }
  });

  test("a trade of another company is not a valid reference", async () => {
    const foreignTrade = (await suite.api.as((await newCompany()).token).get("/v1/trades")).body
      .data[0].id;
    const response = await api().post("/v1/workers", { name: "W", trade_id: foreignTrade });
    expect(response.status).toBe(422);
    expect(response.body.errors[0]).toMatchObject({ field: "trade_id", code: "unknown_reference" });
  });

  test("/healthz answers without a token", async () => {
    const response = await suite.api.request("GET", "/healthz", { token: null });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: "ok", database: "up" });
    expect(response.body.database_ms).toBeGreaterThanOrEqual(0);
  });
});
