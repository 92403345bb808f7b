// Custom fields (docs/custom-fields.md): a company's own typed fields, defined as rows
// (`/v1/custom-fields`: dry-run, keys, If-Match, events, per-plan limits), their values under
// `custom_fields` on every record, checked with the built-in fields (422 `custom_fields.<key>`, all
// at once) on every write path, unique ones refused as 409, and another company's fields invisible
// and unusable.
import { beforeAll, describe, expect, test } from "bun:test";
import { type Api, create } from "@erp/testing/api";
import { newCompany, type TestCompany } from "@erp/testing/company";
import { expectProblem } from "@erp/testing/rules";
import { useServer } from "@erp/testing/suite";

const suite = useServer();
let company: TestCompany;
let api: Api;

beforeAll(async () => {
  company = await newCompany();
  api = suite.api.as(company.token);
});

const fresh = (): string => crypto.randomUUID().slice(0, 6);

async function defineField(client: Api, body: Record<string, unknown>) {
  const response = await client.post("/v1/custom-fields", body);
  if (response.status !== 201) throw new Error(`define → ${response.status} ${response.text}`);
  return response.body.data.record;
}

/** One valid value, one invalid value and its error code, per type. */
const TYPES: Record<
  string,
  { options?: object; valid: unknown; stored: unknown; invalid: unknown; code: string }
> = {
  text: {
    options: { max_length: 5 },
    valid: "A-1",
    stored: "A-1",
    invalid: "toolong",
    code: "too_long",
  },
  integer: { valid: 42, stored: 42, invalid: 1.5, code: "invalid_integer" },
  decimal: { valid: "12.3750", stored: "12.375", invalid: "1.1234567", code: "invalid_decimal" },
  money: { valid: 12.5, stored: "12.50", invalid: "-1", code: "invalid_money" },
  date: { valid: "2027-01-31", stored: "2027-01-31", invalid: "2027-02-30", code: "invalid_date" },
  boolean: { valid: true, stored: true, invalid: "yes", code: "invalid_type" },
  select: {
    options: { choices: ["S", "M", "L"] },
    valid: "M",
    stored: "M",
    invalid: "XL",
    code: "invalid_choice",
  },
};

describe("definitions", () => {
  test("create, list, get, update and delete, with dry-runs, If-Match and events", async () => {
    const key = `union_${fresh()}`;
    const body = { resource: "workers", key, label: `Union ${key}`, type: "text" };
    const dry = await api.post("/v1/custom-fields", body, { headers: { "x-dry-run": "1" } });
    expect(dry.status).toBe(200);
    expect(dry.body.data).toEqual({ id: null, created: false, dry_run: true });
    const created = await api.post("/v1/custom-fields", body);
    expect(created.status).toBe(201);
    const field = created.body.data.record;
    expect(field).toMatchObject({
      key,
      type: "text",
      required: false,
      unique: false,
      sensitive: false,
    });
    expect(created.headers.get("location")).toBe(`/v1/custom-fields/${field.id}`);

    const listed = await api.get("/v1/custom-fields?resource=workers");
    expect(listed.body.data.map((one: { key: string }) => one.key)).toContain(key);
    expect((await api.get("/v1/custom-fields?resource=clients")).body.data).toEqual([]);
    const got = await api.get(`/v1/custom-fields/${field.id}`);
    expect(got.body.data).toEqual(field);
    const etag = got.headers.get("etag")!;
    expect(got.headers.get("etag")).toBe(created.headers.get("etag"));

    const stale = await api.patch(
      `/v1/custom-fields/${field.id}`,
      { label: "x" },
      { headers: { "if-match": '"nope"' } },
    );
    expectProblem(stale, 412, "precondition_failed");
    const renamed = await api.patch(
      `/v1/custom-fields/${field.id}`,
      { label: "Union number" },
      { headers: { "if-match": etag } },
    );
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.changes).toEqual({
      label: { from: `Union ${key}`, to: "Union number" },
    });
    const changeType = await api.patch(`/v1/custom-fields/${field.id}`, { type: "integer" });
    expectProblem(changeType, 409, "custom_field_conflict");

    const worker = await create(api, "/v1/workers", {
      name: "Ann",
      custom_fields: { [key]: "A-1" },
    });
    const deleteDry = await api.delete(`/v1/custom-fields/${field.id}`, {
      headers: { "x-dry-run": "1" },
    });
    expect(deleteDry.body.data).toMatchObject({ deleted: false, dry_run: true, values_cleared: 1 });
    const deleted = await api.delete(`/v1/custom-fields/${field.id}`);
    expect(deleted.body.data).toMatchObject({ id: field.id, deleted: true, values_cleared: 1 });
    expect((await api.get(`/v1/workers/${worker}`)).body.data.custom_fields[key]).toBeUndefined();
    expectProblem(await api.get(`/v1/custom-fields/${field.id}`), 404, "not_found");

    const events = await api.get("/v1/events?limit=100&resource=custom-fields");
    expect(events.status).toBe(200);
    const mine = events.body.data.filter((event: any) => event.record_id === field.id);
    expect(mine.map((event: any) => event.type)).toEqual([
      "custom_field.created",
      "custom_field.updated",
      "custom_field.deleted",
    ]);
    expect(mine[1].data.changes).toEqual({ label: { from: `Union ${key}`, to: "Union number" } });
    const narrow = await suite.api.post(
      "/v1/tokens",
      { name: "events only", scopes: ["events:read"] },
      { token: company.token },
    );
    const feed = await suite.api.get("/v1/events?limit=100&resource=custom-fields", {
      token: narrow.body.data.token,
    });
    expect(feed.body.data.map((event: any) => event.type)).toContain("custom_field.created");
  });

  test("bad definitions are one 422 naming each member; key and label are unique per resource", async () => {
    const bad = await api.post("/v1/custom-fields", {
      resource: "nothing",
      key: "Bad Key",
      type: "colour",
      extra: 1,
    });
    expectProblem(bad, 422, "validation_failed");
    expect(bad.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(
      ["extra", "key", "label", "resource", "type"].sort(),
    );
    const noChoices = await api.post("/v1/custom-fields", {
      resource: "workers",
      key: "size",
      label: "Size",
      type: "select",
    });
    expectProblem(noChoices, 422, "validation_failed");
    const key = `badge_${fresh()}`;
    await defineField(api, { resource: "clients", key, label: `Badge ${key}`, type: "text" });
    expectProblem(
      await api.post("/v1/custom-fields", {
        resource: "clients",
        key,
        label: "Other",
        type: "text",
      }),
      409,
      "unique_violation",
    );
    expectProblem(
      await api.post("/v1/custom-fields", {
        resource: "clients",
        key: `${key}_b`,
        label: `BADGE ${key}`,
        type: "text",
      }),
      409,
      "unique_violation",
    );
  });

  test("parallel creates of one key: one is created, the others 409 unique_violation, never a 500", async () => {
    const key = `race_${fresh()}`;
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, n) =>
        api.post("/v1/custom-fields", {
          resource: "workers",
          key,
          label: `Race ${key} ${n}`,
          type: "integer",
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
  });

  test("plans limit fields per resource: free 5, then 402 quota_exceeded", async () => {
    const free = suite.api.as((await newCompany({ plan: "free" })).token);
    for (let n = 0; n < 5; n++)
      await defineField(free, {
        resource: "projects",
        key: `f${n}`,
        label: `F${n}`,
        type: "integer",
      });
    expectProblem(
      await free.post("/v1/custom-fields", {
        resource: "projects",
        key: "f5",
        label: "F5",
        type: "integer",
      }),
      402,
      "quota_exceeded",
    );
    await defineField(free, { resource: "clients", key: "f5", label: "F5", type: "integer" });
  });
});

describe("values on every write path", () => {
  const keys: Record<string, string> = {};
  beforeAll(async () => {
    for (const [type, spec] of Object.entries(TYPES)) {
      keys[type] = `${type}_v`;
      await defineField(api, {
        resource: "equipment",
        key: keys[type],
        label: `${type} value`,
        type,
        ...(spec.options ? { options: spec.options } : {}),
      });
    }
  });

  const all = (pick: (spec: (typeof TYPES)[string]) => unknown) =>
    Object.fromEntries(Object.entries(TYPES).map(([type, spec]) => [keys[type], pick(spec)]));

  test("create: valid values stored, missing ones null, every invalid one named at once", async () => {
    const id = await create(api, "/v1/equipment", {
      name: "Crane",
      custom_fields: all((spec) => spec.valid),
    });
    const record = (await api.get(`/v1/equipment/${id}`)).body.data;
    expect(record.custom_fields).toEqual(all((spec) => spec.stored));
    const bare = await create(api, "/v1/equipment", { name: "Bare" });
    expect((await api.get(`/v1/equipment/${bare}`)).body.data.custom_fields).toEqual(
      all(() => null),
    );
    const invalid = await api.post("/v1/equipment", {
      name: "",
      custom_fields: { ...all((spec) => spec.invalid), nope: 1 },
    });
    expectProblem(invalid, 422, "validation_failed");
    const named = Object.fromEntries(
      invalid.body.errors.map((error: { field: string; code: string }) => [
        error.field,
        error.code,
      ]),
    );
    for (const [type, spec] of Object.entries(TYPES))
      expect(named[`custom_fields.${keys[type]}`]).toBe(spec.code);
    expect(named["custom_fields.nope"]).toBe("unknown_field");
    expect(named.name).toBeDefined();
  });

  test("PATCH merges per key: keys not sent keep their values, null clears one", async () => {
    const id = await create(api, "/v1/equipment", {
      name: "Lift",
      custom_fields: all((spec) => spec.valid),
    });
    const patched = await api.patch(`/v1/equipment/${id}`, {
      custom_fields: { [keys.text!]: "B-2", [keys.integer!]: null },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.changes.custom_fields).toEqual({
      from: { [keys.text!]: "A-1", [keys.integer!]: 42 },
      to: { [keys.text!]: "B-2", [keys.integer!]: null },
    });
    expect(patched.body.data.record.custom_fields).toEqual({
      ...all((spec) => spec.stored),
      [keys.text!]: "B-2",
      [keys.integer!]: null,
    });
    const same = await api.patch(`/v1/equipment/${id}`, { custom_fields: { [keys.text!]: "B-2" } });
    expect(same.body.data.updated).toBe(false);
    const invalid = await api.patch(`/v1/equipment/${id}`, {
      custom_fields: all((spec) => spec.invalid),
    });
    expect(invalid.body.errors).toHaveLength(Object.keys(TYPES).length);
  });

  test("batch create, update and upsert check each item's values", async () => {
    const batch = await api.post("/v1/equipment/batch", {
      items: [
        { name: "One", external_id: `e1-${fresh()}`, custom_fields: all((spec) => spec.valid) },
        { name: "Two", custom_fields: { [keys.select!]: "XL" } },
      ],
    });
    expect(batch.status).toBe(200);
    expect(batch.body.data.results.map((r: { status: number }) => r.status)).toEqual([201, 422]);
    expect(batch.body.data.results[1].error.errors[0].field).toBe(`custom_fields.${keys.select}`);
    const id = batch.body.data.results[0].id;
    const update = await api.post("/v1/equipment/batch", {
      operation: "update",
      items: [{ id, custom_fields: { [keys.date!]: "2028-01-01" } }],
    });
    expect(update.body.data.results[0].action).toBe("updated");
    const record = (await api.get(`/v1/equipment/${id}`)).body.data;
    expect(record.custom_fields[keys.date!]).toBe("2028-01-01");
    expect(record.custom_fields[keys.money!]).toBe("12.50");
    const upsert = await api.request("PUT", `/v1/equipment/by-external-id/${record.external_id}`, {
      body: { name: "One", custom_fields: { [keys.boolean!]: false } },
    });
    expect(upsert.status).toBe(200);
    expect((await api.get(`/v1/equipment/${id}`)).body.data.custom_fields[keys.boolean!]).toBe(
      false,
    );
  });

  test("each type in a batch (create, update, upsert) and a by-external-id write: invalid values are each item's 422", async () => {
    const types = Object.entries(TYPES);
    const created = await api.post("/v1/equipment/batch", {
      items: types.map(([type, spec]) => ({
        name: `Bad ${type}`,
        custom_fields: { [keys[type]!]: spec.invalid },
      })),
    });
    expect(created.body.data.results.map((r: any) => r.error?.errors?.[0]?.field)).toEqual(
      types.map(([type]) => `custom_fields.${keys[type]}`),
    );
    expect(created.body.data.results.map((r: any) => r.error?.errors?.[0]?.code)).toEqual(
      types.map(([, spec]) => spec.code),
    );
    const id = await create(api, "/v1/equipment", { name: "Target" });
    const updated = await api.post("/v1/equipment/batch", {
      operation: "update",
      items: types.map(([type, spec]) => ({ id, custom_fields: { [keys[type]!]: spec.invalid } })),
    });
    expect(updated.body.data.results.map((r: any) => r.status)).toEqual(types.map(() => 422));
    const external = `x-${fresh()}`;
    const upserted = await api.post("/v1/equipment/batch", {
      on_conflict: "update",
      items: [
        { name: "Up", external_id: external, custom_fields: all((spec) => spec.valid) },
        { name: "Up", external_id: external, custom_fields: { [keys.integer!]: "x" } },
      ],
    });
    expect(upserted.body.data.results.map((r: any) => r.status)).toEqual([201, 422]);
    const put = await api.request("PUT", `/v1/equipment/by-external-id/${external}`, {
      body: { name: "Up", custom_fields: { [keys.date!]: "soon" } },
    });
    expectProblem(put, 422, "validation_failed");
    expect(put.body.errors[0].field).toBe(`custom_fields.${keys.date}`);
    const missing = await api.request("PUT", `/v1/equipment/by-external-id/new-${external}`, {
      body: { name: "New" },
    });
    expect(missing.status).toBe(201);
    const shown = (await api.get(`/v1/equipment/${missing.body.data.id}`)).body.data;
    expect(shown.custom_fields).toEqual(all(() => null));
  });

  test("a unique field's duplicate is 409 unique_violation, exactly (case counts), on create, PATCH and in a batch", async () => {
    const key = `serial_${fresh()}`;
    await defineField(api, {
      resource: "subcontractors",
      key,
      label: `Serial ${key}`,
      type: "text",
      unique: true,
    });
    const first = await create(api, "/v1/subcontractors", {
      name: "A",
      custom_fields: { [key]: "ABC" },
    });
    expectProblem(
      await api.post("/v1/subcontractors", { name: "B", custom_fields: { [key]: "ABC" } }),
      409,
      "unique_violation",
    );
    const other = await create(api, "/v1/subcontractors", {
      name: "C",
      custom_fields: { [key]: "abc" },
    });
    expectProblem(
      await api.patch(`/v1/subcontractors/${other}`, { custom_fields: { [key]: "ABC" } }),
      409,
      "unique_violation",
    );
    const batch = await api.post("/v1/subcontractors/batch", {
      items: [
        { name: "D", custom_fields: { [key]: "X1" } },
        { name: "E", custom_fields: { [key]: "X1" } },
      ],
    });
    expect(batch.body.data.results.map((r: { status: number }) => r.status)).toEqual([201, 409]);
    await api.delete(`/v1/subcontractors/${first}`);
    await create(api, "/v1/subcontractors", { name: "F", custom_fields: { [key]: "ABC" } });
    // Restored, the deleted record would hold the value again: 409 naming it; its values came back.
    expectProblem(await api.post(`/v1/subcontractors/${first}/restore`), 409, "unique_violation");
    const d = batch.body.data.results[0].id;
    await api.delete(`/v1/subcontractors/${d}`);
    const restored = await api.post(`/v1/subcontractors/${d}/restore`, undefined, {
      headers: { prefer: "return=representation" },
    });
    expect(restored.status).toBe(200);
    expect((await api.get(`/v1/subcontractors/${d}`)).body.data.custom_fields[key]).toBe("X1");
  });

  test("required: a create without it is 422; making a field required with records lacking it is 409", async () => {
    const key = `card_${fresh()}`;
    const field = await defineField(api, {
      resource: "estimates",
      key,
      label: `Card ${key}`,
      type: "date",
    });
    const estimate = await create(api, "/v1/estimates", { title: "E" });
    const made = await api.patch(
      `/v1/custom-fields/${field.id}`,
      { required: true },
      { headers: { "x-dry-run": "1" } },
    );
    expectProblem(made, 409, "custom_field_conflict");
    expect(made.body.errors.map((error: { message: string }) => error.message).join()).toContain(
      String(estimate),
    );
    await api.patch(`/v1/estimates/${estimate}`, { custom_fields: { [key]: "2027-01-01" } });
    expect((await api.patch(`/v1/custom-fields/${field.id}`, { required: true })).status).toBe(200);
    const missing = await api.post("/v1/estimates", { title: "F" });
    expectProblem(missing, 422, "validation_failed");
    expect(missing.body.errors[0].field).toBe(`custom_fields.${key}`);
  });
});

describe("another company's fields", () => {
  test("are invisible and unusable: 404 for the definition, 422 for its key", async () => {
    const key = `secret_${fresh()}`;
    const field = await defineField(api, {
      resource: "workers",
      key,
      label: `Secret ${key}`,
      type: "text",
    });
    const other = suite.api.as((await newCompany()).token);
    expectProblem(await other.get(`/v1/custom-fields/${field.id}`), 404, "not_found");
    expectProblem(
      await other.patch(`/v1/custom-fields/${field.id}`, { label: "mine" }),
      404,
      "not_found",
    );
    expectProblem(await other.delete(`/v1/custom-fields/${field.id}`), 404, "not_found");
    expect((await other.get("/v1/custom-fields")).body.data).toEqual([]);
    const written = await other.post("/v1/workers", { name: "Bob", custom_fields: { [key]: "x" } });
    expectProblem(written, 422, "validation_failed");
    expect(written.body.errors[0].field).toBe(`custom_fields.${key}`);
    const id = await create(other, "/v1/workers", { name: "Bob" });
    expect((await other.get(`/v1/workers/${id}`)).body.data.custom_fields).toEqual({});
  });
});
