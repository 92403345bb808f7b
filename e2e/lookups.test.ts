// Company-managed lookups (docs/concepts.md, "Lookups"): trades and equipment categories are
// created, renamed, deleted and restored like records (dry-run, keys, If-Match, events), their names
// unique per company ignoring case and surrounding spaces (accents count), a deleted one kept by the
// records that name it and refused to new writes, another company's invisible and unusable, writes
// guarded by `lookups:write`. Every lookup of the registry and every resource naming it is covered.
import { beforeAll, describe, expect, test } from "bun:test";
import { purgeExpired } from "@erp/server/housekeeping";
import { LOOKUPS } from "@erp/server/registry";
import { type Api, create } from "@erp/testing/api";
import { erpFor } from "@erp/testing/cli";
import { newCompany, newToken, testDb, type TestCompany } from "@erp/testing/company";
import { expectProblem } from "@erp/testing/rules";
import { SAMPLES } from "@erp/testing/samples";
import { useServer } from "@erp/testing/suite";
import { lookupNameKey } from "../sdk/mod.ts";

const suite = useServer();
let company: TestCompany;
let api: Api;

beforeAll(async () => {
  company = await newCompany();
  api = suite.api.as(company.token);
});

/** A name no other test of this file uses. */
const fresh = (what: string): string => `${what} ${crypto.randomUUID().slice(0, 8)}`;

/** The event type of an action on a lookup: `trade.created`, `equipment_category.deleted`. */
const eventType = (singular: string, action: string): string =>
  `${singular.replace(/(?<=[a-z])([A-Z])/g, "_$1").toLowerCase()}.${action}`;

/** A record of `resource` naming the lookup `id` in `column`, from the resource's sample. */
async function dependentOf(client: Api, resource: string, column: string, id: number) {
  const sample = SAMPLES.find((one) => one.resource === resource)!;
  return create(client, `/v1/${resource}`, { ...sample.create, [column]: id });
}

for (const def of LOOKUPS) {
  const path = `/v1/${def.name}`;
  const what = def.singular.toLowerCase();

  describe(`${def.name}: the company's own`, () => {
    test("a new company starts with the seeded names, each a record with timestamps", async () => {
      const list = await api.get(`${path}?limit=100&sort=id`);
      expect(list.status).toBe(200);
      expect(list.body.data.map((one: { name: string }) => one.name)).toEqual(
        expect.arrayContaining([...def.lookup!.seed]),
      );
      const [first] = list.body.data;
      expect(Object.keys(first).sort()).toEqual(
        ["created_at", "external_id", "id", "name", "updated_at"].sort(),
      );
    });

    test("create: a dry-run writes nothing; a keyed create is stored once, its name trimmed", async () => {
      const name = fresh("Scaffolding");
      const before = (await api.get(path)).body.meta.total;
      const dry = await api.post(path, { name: `  ${name} ` }, { headers: { "x-dry-run": "1" } });
      expect(dry.status).toBe(200);
      expect(dry.body.data).toEqual({ id: null, created: false, dry_run: true });
      expect((await api.get(path)).body.meta.total).toBe(before);
      const key = { headers: { "idempotency-key": `lookup-${name}` } };
      const made = await api.post(path, { name: `  ${name} `, external_id: name }, key);
      expect(made.status).toBe(201);
      expect(made.headers.get("location")).toBe(`${path}/${made.body.data.id}`);
      expect(made.headers.get("etag")).toBeTruthy();
      const again = await api.post(path, { name: `  ${name} `, external_id: name }, key);
      expect(again.status).toBe(201);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(again.body).toEqual(made.body);
      expect((await api.get(path)).body.meta.total).toBe(before + 1);
      const got = await api.get(`${path}/${made.body.data.id}`);
      expect(got.body.data).toMatchObject({ name, external_id: name });
      expect(got.headers.get("etag")).toBe(made.headers.get("etag"));
    });

    test("rename with If-Match: a stale tag is 412, the current one renames; a dry-run changes nothing", async () => {
      const id = await create(api, path, { name: fresh("Rigging") });
      const read = await api.get(`${path}/${id}`);
      const to = fresh("Rigging and lifting");
      const dry = await api.patch(`${path}/${id}`, { name: to }, { headers: { "x-dry-run": "1" } });
      expect(dry.status).toBe(200);
      expect(dry.body.data).toMatchObject({ dry_run: true, record: { name: to } });
      expect((await api.get(`${path}/${id}`)).body.data.name).toBe(read.body.data.name);
      expectProblem(
        await api.patch(`${path}/${id}`, { name: to }, { headers: { "if-match": '"stale"' } }),
        412,
        "precondition_failed",
      );
      const renamed = await api.patch(
        `${path}/${id}`,
        { name: to },
        { headers: { "if-match": read.headers.get("etag")! } },
      );
      expect(renamed.status).toBe(200);
      expect(renamed.body.data.changes).toEqual({ name: { from: read.body.data.name, to } });
      expect((await api.get(`${path}/${id}`)).body.data.name).toBe(to);
      // Its own name in another case is a rename, not a conflict with itself.
      const shouted = await api.patch(`${path}/${id}`, { name: to.toUpperCase() });
      expect(shouted.status).toBe(200);
      expect(shouted.body.data.record.name).toBe(to.toUpperCase());
    });

    test(
      "delete and restore, each previewed by a dry-run first, with If-Match; the history " +
        "tells all four",
      async () => {
        const id = await create(api, path, { name: fresh("Demolition") });
        const tag = (await api.get(`${path}/${id}`)).headers.get("etag")!;
        const preview = await api.delete(`${path}/${id}`, { headers: { "x-dry-run": "1" } });
        expect(preview.body.data).toMatchObject({ deleted: false, dry_run: true, mode: "soft" });
        expect((await api.get(`${path}/${id}`)).status).toBe(200);
        expectProblem(
          await api.delete(`${path}/${id}`, { headers: { "if-match": '"stale"' } }),
          412,
          "precondition_failed",
        );
        const deleted = await api.delete(`${path}/${id}`, { headers: { "if-match": tag } });
        expect(deleted.body.data).toMatchObject({
          id,
          deleted: true,
          mode: "soft",
          would_delete: [{ resource: def.name, id }],
        });
        expectProblem(await api.get(`${path}/${id}`), 404, "not_found");
        expectProblem(await api.delete(`${path}/${id}`), 404, "not_found");
        const listed = await api.get(`${path}?include_deleted=true&limit=100&after_id=${id - 1}`);
        expect(listed.body.data[0]).toMatchObject({ id, deleted_at: expect.any(String) });
        const dryRestore = await api.post(`${path}/${id}/restore`, undefined, {
          headers: { "x-dry-run": "1" },
        });
        expect(dryRestore.status).toBe(200);
        expectProblem(await api.get(`${path}/${id}`), 404, "not_found");
        const restored = await api.post(`${path}/${id}/restore`);
        expect(restored.status).toBe(200);
        expect((await api.get(`${path}/${id}`)).status).toBe(200);
        expectProblem(await api.post(`${path}/${id}/restore`), 409, "not_deleted");
        await api.patch(`${path}/${id}`, { name: fresh("Demolition and clearance") });
        const history = await api.get(`${path}/${id}/events`);
        expect(history.status).toBe(200);
        expect(history.body.data.map((event: { type: string }) => event.type)).toEqual(
          ["created", "deleted", "restored", "updated"].map((action) =>
            eventType(def.singular, action),
          ),
        );
        const feed = await api.get(`/v1/events?resource=${def.name}&limit=100`);
        expect(feed.body.data.some((event: { record_id: number }) => event.record_id === id)).toBe(
          true,
        );
      },
    );
  });

  describe(`${def.name}: names unique ignoring case and surrounding spaces, accents counting`, () => {
    test("another case or surrounding spaces of a live name is 409 naming its holder", async () => {
      const name = fresh("Glazing");
      const id = await create(api, path, { name });
      for (const variant of [name.toUpperCase(), ` ${name.toLowerCase()}\t`, `\u00a0${name}`]) {
        const refused = await api.post(path, { name: variant });
        expectProblem(refused, 409, "unique_violation");
        expect(refused.body.detail).toContain(`${what} ${id}`);
        expect(refused.body.errors[0].field).toBe("name");
        expect(lookupNameKey(variant)).toBe(lookupNameKey(name));
      }
      const other = await create(api, path, { name: fresh("Glazing") });
      expectProblem(
        await api.patch(`${path}/${other}`, { name: ` ${name} ` }),
        409,
        "unique_violation",
      );
    });

    test("accents count: Électrique and Electrique are two names; ÉLECTRIQUE is the first", async () => {
      const tail = crypto.randomUUID().slice(0, 6);
      const accented = await api.post(path, { name: `Électrique ${tail}` });
      const plain = await api.post(path, { name: `Electrique ${tail}` });
      expect([accented.status, plain.status]).toEqual([201, 201]);
      expectProblem(await api.post(path, { name: `ÉLECTRIQUE ${tail}` }), 409, "unique_violation");
      expect(lookupNameKey(`Électrique ${tail}`)).not.toBe(lookupNameKey(`Electrique ${tail}`));
      const found = await api.get(
        `${path}?name=${encodeURIComponent(` électrique ${tail.toUpperCase()} `)}`,
      );
      expect(found.body.data.map((one: { id: number }) => one.id)).toEqual([accented.body.data.id]);
    });

    test("a deleted name is free again; restoring the old one is then 409 naming the new holder", async () => {
      const name = fresh("Insulation");
      const old = await create(api, path, { name });
      expect((await api.delete(`${path}/${old}`)).status).toBe(200);
      const successor = await create(api, path, { name: name.toLowerCase() });
      const refused = await api.post(`${path}/${old}/restore`);
      expectProblem(refused, 409, "unique_violation");
      expect(refused.body.detail).toContain(`${what} ${successor}`);
    });

    test("external_id is unique among the live ones, exactly; bad names are 422 with every error", async () => {
      const external = fresh("EXT");
      await create(api, path, { name: fresh("Tiling"), external_id: external });
      expectProblem(
        await api.post(path, { name: fresh("Tiling"), external_id: external }),
        409,
        "unique_violation",
      );
      const bad = await api.post(path, { name: "x".repeat(101), external_id: "", color: "red" });
      expectProblem(bad, 422, "validation_failed");
      expect(bad.body.errors.map((error: { field: string }) => error.field).sort()).toEqual([
        "color",
        "external_id",
        "name",
      ]);
      for (const name of ["   ", ""])
        expectProblem(await api.post(path, { name }), 422, "validation_failed");
      // 100 characters between spaces fit: the name is stored trimmed.
      expect(
        (await api.post(path, { name: ` ${"y".repeat(99)}${crypto.randomUUID().slice(0, 1)} ` }))
          .status,
      ).toBe(201);
    });

    test("two creates of one name at once: one is created, the other 409, never a 500", async () => {
      const name = fresh("Fencing");
      const answers = await Promise.all(
        [name, name.toUpperCase(), ` ${name}`, name.toLowerCase()].map((variant) =>
          api.post(path, { name: variant }),
        ),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409]);
      for (const answer of answers.filter((one) => one.status === 409))
        expect(answer.body.code).toBe("unique_violation");
    });

    test("q finds names case-insensitively, % literally; sort=name orders them", async () => {
      const tail = crypto.randomUUID().slice(0, 6);
      await create(api, path, { name: `Welding ${tail} 100%` });
      await create(api, path, { name: `arc welding ${tail}` });
      const found = await api.get(`${path}?q=ARC%20WELDING%20${tail}&sort=name`);
      expect(found.body.data.map((one: { name: string }) => one.name)).toEqual([
        `arc welding ${tail}`,
      ]);
      const both = await api.get(`${path}?q=${tail}&sort=-name`);
      expect(both.body.data.map((one: { name: string }) => one.name)).toEqual([
        `Welding ${tail} 100%`,
        `arc welding ${tail}`,
      ]);
      // `%` is a character to find, not a wildcard that would match both.
      expect((await api.get(`${path}?q=${tail}%20100%25`)).body.meta.total).toBe(1);
      expect((await api.get(`${path}?q=${tail}%25`)).body.meta.total).toBe(0);
    });
  });

  describe(`${def.name}: a deleted one stays on the records naming it`, () => {
    for (const dependent of def.dependents) {
      const resource = dependent.resource.name;
      const field = dependent.column;
      const embed = field.replace(/_id$/, "");

      test(`${resource} keep it, shown as deleted; new writes naming it are 422 until it is restored`, async () => {
        const id = await create(api, path, { name: fresh("Formwork") });
        const record = await dependentOf(api, resource, field, id);
        const preview = await api.delete(`${path}/${id}`, { headers: { "x-dry-run": "1" } });
        expect(preview.body.data.would_keep).toContainEqual({ resource, id: record });
        const deleted = await api.delete(`${path}/${id}`);
        expect(deleted.body.data.would_keep).toContainEqual({ resource, id: record });
        const shown = await api.get(`/v1/${resource}/${record}?expand=${embed}`);
        expect(shown.body.data[field]).toBe(id);
        expect(shown.body.data[embed]).toEqual({ id, deleted: true });
        const listed = await api.get(`/v1/${resource}?${field}=${id}&expand=${embed}`);
        expect(listed.body.data.map((one: { id: number }) => one.id)).toEqual([record]);
        // Its other fields still change; naming the deleted lookup anew is refused.
        const sample = SAMPLES.find((one) => one.resource === resource)!;
        expect((await api.patch(`/v1/${resource}/${record}`, sample.update)).status).toBe(200);
        const refused = await api.post(`/v1/${resource}`, { ...sample.create, [field]: id });
        expectProblem(refused, 422, "validation_failed");
        expect(refused.body.errors[0]).toMatchObject({ field, code: "unknown_reference" });
        const other = await dependentOf(
          api,
          resource,
          field,
          await create(api, path, { name: fresh("Spare") }),
        );
        expectProblem(
          await api.patch(`/v1/${resource}/${other}`, { [field]: id }),
          422,
          "validation_failed",
        );
        expect((await api.post(`${path}/${id}/restore`)).status).toBe(200);
        const back = await api.get(`/v1/${resource}/${record}?expand=${embed}`);
        expect(back.body.data[embed].deleted).toBeUndefined();
        expect(back.body.data[embed]).toMatchObject({ id, name: expect.any(String) });
        expect((await api.post(`/v1/${resource}`, { ...sample.create, [field]: id })).status).toBe(
          201,
        );
      });
    }

    test("the purge after 90 days removes a deleted one no record names, and keeps a named one", async () => {
      const named = await create(api, path, { name: fresh("Named") });
      const unnamed = await create(api, path, { name: fresh("Unnamed") });
      const dependent = def.dependents[0]!;
      await dependentOf(api, dependent.resource.name, dependent.column, named);
      for (const id of [named, unnamed])
        expect((await api.delete(`${path}/${id}`)).status).toBe(200);
      const table = def.name.replace(/-/g, "_");
      await testDb().pool.query(
        `UPDATE \`${table}\` SET updated_at = NOW(3) - INTERVAL 91 DAY, ` +
          "deleted_at = NOW(3) - INTERVAL 91 DAY WHERE id IN (?)",
        [[named, unnamed]],
      );
      await purgeExpired(testDb().db);
      const [rows] = await testDb().pool.query(`SELECT id FROM \`${table}\` WHERE id IN (?)`, [
        [named, unnamed],
      ]);
      expect((rows as { id: number }[]).map((row) => Number(row.id))).toEqual([named]);
    });
  });
}

describe("tenant walls", () => {
  for (const def of LOOKUPS) {
    const path = `/v1/${def.name}`;
    test(`${def.name}: another company's are invisible and unusable (404, 422), its names its own`, async () => {
      const theirs = suite.api.as((await newCompany()).token);
      const name = fresh("Private");
      const id = await create(theirs, path, { name });
      expect((await api.post(path, { name })).status).toBe(201);
      expectProblem(await api.get(`${path}/${id}`), 404, "not_found");
      expectProblem(await api.patch(`${path}/${id}`, { name: fresh("Mine") }), 404, "not_found");
      expectProblem(await api.delete(`${path}/${id}`), 404, "not_found");
      expectProblem(await api.post(`${path}/${id}/restore`), 404, "not_found");
      expectProblem(await api.get(`${path}/${id}/events`), 404, "not_found");
      expect((await api.get(`${path}?name=${encodeURIComponent(name)}`)).body.data).toHaveLength(1);
      const dependent = def.dependents[0]!;
      const sample = SAMPLES.find((one) => one.resource === dependent.resource.name)!;
      const refused = await api.post(`/v1/${dependent.resource.name}`, {
        ...sample.create,
        [dependent.column]: id,
      });
      expectProblem(refused, 422, "validation_failed");
      expect((await theirs.get(`${path}/${id}`)).body.data.name).toBe(name);
    });
  }

  test("equipment categories need the equipment add-on, reads and writes alike", async () => {
    const apiOnly = suite.api.as((await newCompany({ addons: ["api"] })).token);
    expectProblem(await apiOnly.get("/v1/equipment-categories"), 402, "feature_off");
    expectProblem(
      await apiOnly.post("/v1/equipment-categories", { name: "Cranes" }),
      402,
      "feature_off",
    );
    expect((await apiOnly.post("/v1/trades", { name: fresh("Roofing") })).status).toBe(201);
  });
});

describe("the lookups:write scope", () => {
  test("reading takes any read scope; writing takes lookups:write (or write, or *)", async () => {
    const as = async (scopes: string[]) =>
      suite.api.as(await newToken(company.companyId, { scopes }));
    const reader = await as(["workers:read"]);
    const trades = await reader.get("/v1/trades?limit=1");
    expect(trades.status).toBe(200);
    const ours = trades.body.data[0].id as number;
    const workersWriter = await as(["workers:write"]);
    const nope = { name: fresh("Nope") };
    for (const refused of [
      await workersWriter.post("/v1/trades", nope),
      await workersWriter.post("/v1/trades", nope, { headers: { "x-dry-run": "1" } }),
      await reader.patch(`/v1/trades/${ours}`, nope),
      await reader.delete(`/v1/trades/${ours}`),
    ]) {
      expectProblem(refused, 403, "insufficient_scope");
      expect(refused.headers.get("www-authenticate")).toContain('scope="lookups:write"');
    }
    // A token that may only write lookups reads them too.
    const lookupsOnly = await as(["lookups:write"]);
    const id = await create(lookupsOnly, "/v1/trades", { name: fresh("Scoped") });
    expect((await lookupsOnly.get(`/v1/trades/${id}`)).status).toBe(200);
    expectProblem(await lookupsOnly.get("/v1/workers"), 403, "insufficient_scope");
    expect(
      (await (await as(["write"])).post("/v1/trades", { name: fresh("Any write") })).status,
    ).toBe(201);
    // Another company's id is 404 for a token that lacks the scope, never 403.
    const theirs = suite.api.as((await newCompany()).token);
    const foreign = await create(theirs, "/v1/trades", { name: fresh("Foreign") });
    expectProblem(await workersWriter.delete(`/v1/trades/${foreign}`), 404, "not_found");
  });
});

describe("the SDK and the CLI", () => {
  test("lookupNameKey holds two names the same exactly when the server does", async () => {
    const tail = crypto.randomUUID().slice(0, 6);
    const first = `Straße ${tail}`;
    await create(api, "/v1/trades", { name: first });
    for (const [name, same] of [
      [`STRASSE ${tail}`, false],
      [`straße ${tail}`, true],
      [`  STRAßE ${tail}  `, true],
      [`Strasse ${tail}`, false],
      [`Straβe ${tail}`, false],
    ] as const) {
      expect(lookupNameKey(name) === lookupNameKey(first), name).toBe(same);
      const answer = await api.post("/v1/trades", { name }, { headers: { "x-dry-run": "1" } });
      expect(answer.status, name).toBe(same ? 409 : 200);
    }
  });

  test("erp trades create, rename (by id or name), delete and restore", async () => {
    const erp = erpFor(suite.server.baseUrl, company.token);
    const name = fresh("Steel fixing");
    const made = await erp(["trades", "create", name, "external_id=SF-1", "-o", "json"]);
    expect(made.code, made.stderr).toBe(0);
    const id = JSON.parse(made.stdout).id as number;
    const twice = await erp(["trades", "create", ` ${name.toUpperCase()} `]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain("unique_violation");
    const renamed = await erp([
      "trades",
      "rename",
      name.toLowerCase(),
      `${name} (rebar)`,
      "-o",
      "json",
    ]);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(JSON.parse(renamed.stdout).record.name).toBe(`${name} (rebar)`);
    const byId = await erp(["trades", "rename", String(id), name, "--dry-run", "-o", "json"]);
    expect(JSON.parse(byId.stdout)).toMatchObject({ dry_run: true, record: { name } });
    const unknown = await erp(["trades", "rename", fresh("No such trade"), "x"]);
    expect(unknown.code).toBe(2);
    const deleted = await erp(["trades", "delete", String(id), "--yes", "-o", "json"]);
    expect(JSON.parse(deleted.stdout)).toMatchObject({ id, deleted: true });
    const restored = await erp(["trades", "restore", String(id), "-o", "json"]);
    expect(restored.code, restored.stderr).toBe(0);
    const listed = await erp(["trades", "list", "--q", name, "-o", "json"]);
    expect(JSON.parse(listed.stdout).map((one: { id: number }) => one.id)).toEqual([id]);
    const categories = await erp(["equipment-categories", "create", fresh("Pumps"), "-o", "json"]);
    expect(categories.code, categories.stderr).toBe(0);
  });
});
