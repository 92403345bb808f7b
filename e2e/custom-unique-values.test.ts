// Unique custom fields under concurrent writes (docs/custom-fields.md): the database guards a unique
// field's values (custom_field_values.unique_value and its unique key), so writes that take the same
// value at the same moment, on two server processes over one database, commit once: exactly one is
// created, every other is 409 unique_violation naming `custom_fields.<key>` (an item error in a
// batch), never a 500, and one record holds the value. A field made unique is guarded at once; one
// no longer unique takes duplicates again. Values compare exactly, and whole. The migration that
// brought the key fills it for the values already stored.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { RowDataPacket } from "mysql2";
import { Api, type ApiResponse, create } from "@erp/testing/api";
import { newCompany, type TestCompany, testDb } from "@erp/testing/company";
import { expectProblem } from "@erp/testing/rules";
import { type RunningServer, startServer } from "@erp/testing/server";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(120_000);

const suite = useServer();
let other: RunningServer;
let company: TestCompany;
let apis: Api[];

beforeAll(async () => {
  other = await startServer();
  company = await newCompany();
  apis = [suite.api.as(company.token), new Api(other.baseUrl).as(company.token)];
});
afterAll(async () => {
  await other?.stop();
});

const PARALLEL = 20;
const fresh = (): string => crypto.randomUUID().slice(0, 6);

async function defineField(body: Record<string, unknown>) {
  const response = await apis[0]!.post("/v1/custom-fields", body);
  if (response.status !== 201) throw new Error(`define → ${response.status} ${response.text}`);
  return response.body.data.record;
}

/** `count` requests at once, alternating between the two servers. */
const together = (count: number, send: (api: Api, index: number) => Promise<ApiResponse>) =>
  Promise.all(Array.from({ length: count }, (_, index) => send(apis[index % 2]!, index)));

/** The live records of `table` whose `key` value the index holds as `value` (text fields). */
async function holders(table: string, fieldId: number, value: string): Promise<number> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    `SELECT COUNT(*) AS n FROM custom_field_values v JOIN \`${table}\` r ON r.company_id = v.company_id
      AND r.id = v.record_id AND r.deleted_at IS NULL
      WHERE v.company_id = ? AND v.field_id = ? AND v.value_text = ?`,
    [company.companyId, fieldId, value],
  );
  return Number(rows[0]!.n);
}

/** One 201, the others 409 unique_violation naming the field. */
function expectOneCreated(responses: ApiResponse[], key: string): void {
  const statuses = responses.map((response) => response.status);
  expect(statuses.filter((status) => status === 201)).toHaveLength(1);
  for (const response of responses.filter((response) => response.status !== 201)) {
    expectProblem(response, 409, "unique_violation");
    expect(response.body.errors[0].field).toBe(`custom_fields.${key}`);
  }
}

test("parallel creates of one unique value on two servers: one 201, the others 409, one record holds it", async () => {
  const key = `serial_${fresh()}`;
  const field = await defineField({
    resource: "subcontractors",
    key,
    label: `Serial ${key}`,
    type: "text",
    unique: true,
  });
  const responses = await together(PARALLEL, (api, index) =>
    api.post("/v1/subcontractors", { name: `S${index}`, custom_fields: { [key]: "SN-1" } }),
  );
  expectOneCreated(responses, key);
  expect(await holders("subcontractors", field.id, "SN-1")).toBe(1);
  // Case counts, trailing spaces do not: `sn-1` is another value, `SN-1 ` the same.
  await create(apis[1]!, "/v1/subcontractors", { name: "lower", custom_fields: { [key]: "sn-1" } });
  expectProblem(
    await apis[1]!.post("/v1/subcontractors", { name: "x", custom_fields: { [key]: "SN-1 " } }),
    409,
    "unique_violation",
  );
});

test("parallel batches taking one unique value: one item created, the others their item's 409", async () => {
  const key = `tag_${fresh()}`;
  const field = await defineField({
    resource: "workers",
    key,
    label: `Tag ${key}`,
    type: "text",
    unique: true,
  });
  const responses = await together(PARALLEL / 2, (api, index) =>
    api.post("/v1/workers/batch", {
      items: [
        { name: `Own ${index}`, custom_fields: { [key]: `own-${index}` } },
        { name: `Shared ${index}`, custom_fields: { [key]: "T-1" } },
      ],
    }),
  );
  for (const response of responses) expect(response.status).toBe(200);
  const results = responses.map((response) => response.body.data.results);
  for (const result of results) expect(result[0].status).toBe(201);
  const shared = results.map((result) => result[1]);
  expect(shared.filter((item) => item.status === 201)).toHaveLength(1);
  for (const item of shared.filter((item) => item.status !== 201)) {
    expect(item.status).toBe(409);
    expect(item.error.code).toBe("unique_violation");
    expect(item.error.errors[0].field).toBe(`custom_fields.${key}`);
  }
  expect(await holders("workers", field.id, "T-1")).toBe(1);
});

test("a field made unique is guarded at once; no longer unique, it takes duplicates", async () => {
  const key = `plate_${fresh()}`;
  const field = await defineField({
    resource: "equipment",
    key,
    label: `Plate ${key}`,
    type: "text",
  });
  await create(apis[0]!, "/v1/equipment", { name: "E1", custom_fields: { [key]: "P-1" } });
  await create(apis[1]!, "/v1/equipment", { name: "E2", custom_fields: { [key]: "P-2" } });
  const made = await apis[1]!.patch(`/v1/custom-fields/${field.id}`, { unique: true });
  expect(made.status).toBe(200);
  // A stored value is refused on both servers, every time.
  const taken = await together(PARALLEL / 2, (api, index) =>
    api.post("/v1/equipment", { name: `T${index}`, custom_fields: { [key]: "P-1" } }),
  );
  for (const response of taken) expectProblem(response, 409, "unique_violation");
  // A new value: taken once.
  const fresh201 = await together(PARALLEL, (api, index) =>
    api.post("/v1/equipment", { name: `N${index}`, custom_fields: { [key]: "P-3" } }),
  );
  expectOneCreated(fresh201, key);
  expect(await holders("equipment", field.id, "P-1")).toBe(1);
  expect(await holders("equipment", field.id, "P-3")).toBe(1);

  const unmade = await apis[0]!.patch(`/v1/custom-fields/${field.id}`, { unique: false });
  expect(unmade.status).toBe(200);
  await create(apis[1]!, "/v1/equipment", { name: "D", custom_fields: { [key]: "P-1" } });
  expect(await holders("equipment", field.id, "P-1")).toBe(2);
  // Made unique again while two records share P-1: 409 custom_field_conflict, nothing changed.
  expectProblem(
    await apis[0]!.patch(`/v1/custom-fields/${field.id}`, { unique: true }),
    409,
    "custom_field_conflict",
  );
});

test("numbers compare as numbers, texts whole: past the first 255 characters two values differ", async () => {
  const amount = `amount_${fresh()}`;
  const note = `note_${fresh()}`;
  await defineField({
    resource: "clients",
    key: amount,
    label: `Amount ${amount}`,
    type: "decimal",
    unique: true,
  });
  await defineField({
    resource: "clients",
    key: note,
    label: `Note ${note}`,
    type: "text",
    unique: true,
    options: { max_length: 1000 },
  });
  const sent = ["12.5", "12.50", 12.5, "12.500000"];
  const responses = await together(PARALLEL, (api, index) =>
    api.post("/v1/clients", { name: `C${index}`, custom_fields: { [amount]: sent[index % 4] } }),
  );
  expectOneCreated(responses, amount);
  const long = "x".repeat(300);
  await create(apis[0]!, "/v1/clients", { name: "L1", custom_fields: { [note]: `${long}a` } });
  await create(apis[1]!, "/v1/clients", { name: "L2", custom_fields: { [note]: `${long}b` } });
  expectProblem(
    await apis[0]!.post("/v1/clients", { name: "L3", custom_fields: { [note]: `${long}b` } }),
    409,
    "unique_violation",
  );
});

test("the migration fills the key for values stored before it, as a write does: a duplicate is then refused", async () => {
  const key = `badge_${fresh()}`;
  const field = await defineField({
    resource: "projects",
    key,
    label: `Badge ${key}`,
    type: "text",
    unique: true,
  });
  await create(apis[0]!, "/v1/projects", { name: "P", custom_fields: { [key]: "B-1" } });
  const pool = testDb().pool;
  const held = async () => {
    const [rows] = await pool.query<RowDataPacket[]>(
      "SELECT unique_value FROM custom_field_values WHERE company_id = ? AND field_id = ?",
      [company.companyId, field.id],
    );
    return rows[0]!.unique_value;
  };
  const written = await held();
  expect(String(written)).toStartWith(`${key}:`);
  // As before the migration: the value stored, the key empty.
  await pool.query(
    "UPDATE custom_field_values SET unique_value = NULL WHERE company_id = ? AND field_id = ?",
    [company.companyId, field.id],
  );
  const folder = join(import.meta.dir, "../server/drizzle");
  const file = readdirSync(folder).find((name) => name.endsWith("_custom-unique-values.sql"))!;
  const fills = readFileSync(join(folder, file), "utf8")
    .split("--> statement-breakpoint")
    .map((statement) => statement.trim())
    .filter((statement) => statement.startsWith("UPDATE IGNORE"));
  expect(fills.length).toBeGreaterThan(0);
  for (const statement of fills) await pool.query(statement);
  // Filled as a write fills it.
  expect(await held()).toBe(written);
  const responses = await together(PARALLEL / 2, (api, index) =>
    api.post("/v1/projects", { name: `Q${index}`, custom_fields: { [key]: "B-1" } }),
  );
  for (const response of responses) expectProblem(response, 409, "unique_violation");
  expect(await holders("projects", field.id, "B-1")).toBe(1);
});

test("a field made unique while duplicates are being written: either the change or the duplicates are refused, never both kept", async () => {
  const key = `lot_${fresh()}`;
  const field = await defineField({
    resource: "subcontractors",
    key,
    label: `Lot ${key}`,
    type: "text",
  });
  await create(apis[0]!, "/v1/subcontractors", { name: "R", custom_fields: { [key]: "R-1" } });
  const [made, ...creates] = await Promise.all([
    apis[0]!.patch(`/v1/custom-fields/${field.id}`, { unique: true }),
    ...Array.from({ length: PARALLEL / 2 }, (_, index) =>
      apis[(index + 1) % 2]!.post("/v1/subcontractors", {
        name: `R${index}`,
        custom_fields: { [key]: "R-1" },
      }),
    ),
  ]);
  for (const response of creates) expect([201, 409]).toContain(response.status);
  const held = await holders("subcontractors", field.id, "R-1");
  if (made!.status === 200) {
    expect(held).toBe(1);
    for (const response of creates) expectProblem(response, 409, "unique_violation");
  } else {
    expectProblem(made!, 409, "custom_field_conflict");
    expect(held).toBe(1 + creates.filter((response) => response.status === 201).length);
  }
});
