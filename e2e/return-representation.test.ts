// `Prefer: return=representation` (docs/api.md): a create, PATCH or upsert answers with the whole
// record as GET shows it, and every one of them with the ETag GET would give, so a client that
// creates a record and then edits it needs no GET in between.
import { beforeAll, describe, expect, test } from "bun:test";
import { newCompany, type TestCompany } from "@erp/testing/company";
import { SAMPLES } from "@erp/testing/samples";
import { useServer } from "@erp/testing/suite";

const suite = useServer();
let company: TestCompany;

beforeAll(async () => {
  company = await newCompany();
});

const api = () => suite.api.as(company.token);
const PREFER = { prefer: "return=representation" };

/** The record and ETag a GET gives now. */
async function read(path: string): Promise<{ record: unknown; etag: string | null }> {
  const response = await api().get(path);
  expect(response.status).toBe(200);
  return { record: response.body.data, etag: response.headers.get("etag") };
}

describe.each(SAMPLES)("$resource", (sample) => {
  const path = `/v1/${sample.resource}`;

  test("create then PATCH with the create's ETag, no GET between: each answer is the record GET shows", async () => {
    const created = await api().post(path, sample.create, { headers: PREFER });
    expect(created.status).toBe(201);
    expect(created.headers.get("preference-applied")).toBe("return=representation");
    const { id, record } = created.body.data;
    expect(created.body.data).toEqual({ id, created: true, dry_run: false, record });
    const etag = created.headers.get("etag")!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);

    const updated = await api().patch(`${path}/${id}`, sample.update, {
      headers: { ...PREFER, "if-match": etag },
    });
    expect(updated.status).toBe(200);
    expect(updated.headers.get("preference-applied")).toBe("return=representation");
    const now = await read(`${path}/${id}`);
    expect(updated.body.data.record).toEqual(now.record);
    expect(updated.headers.get("etag")).toBe(now.etag);
    expect(now.etag).not.toBe(etag);
    for (const [field, value] of Object.entries(sample.update))
      expect(String((now.record as Record<string, unknown>)[field])).toBe(String(value));
  });

  test("the create's record and ETag are what GET gives", async () => {
    const created = await api().post(path, sample.create, { headers: PREFER });
    const now = await read(`${path}/${created.body.data.id}`);
    expect(created.body.data.record).toEqual(now.record);
    expect(created.headers.get("etag")).toBe(now.etag);
  });

  test("an upsert answers with the record it created, then with the record it updated", async () => {
    const member = `${path}/by-external-id/rep-${crypto.randomUUID().slice(0, 8)}`;
    const created = await api().request("PUT", member, { body: sample.create, headers: PREFER });
    expect(created.status).toBe(201);
    expect(created.headers.get("preference-applied")).toBe("return=representation");
    const id = created.body.data.id;
    expect(created.body.data.record).toEqual((await read(`${path}/${id}`)).record);
    const updated = await api().request("PUT", member, { body: sample.update, headers: PREFER });
    expect(updated.status).toBe(200);
    const now = await read(`${path}/${id}`);
    expect(updated.body.data.record).toEqual(now.record);
    expect(updated.headers.get("etag")).toBe(now.etag);
  });

  test("without the preference a create carries its ETag but not the record", async () => {
    const created = await api().post(path, sample.create);
    expect(created.status).toBe(201);
    expect(created.body.data).not.toHaveProperty("record");
    expect(created.headers.get("preference-applied")).toBeNull();
    expect(created.headers.get("etag")).toBe((await read(`${path}/${created.body.data.id}`)).etag);
  });
});
