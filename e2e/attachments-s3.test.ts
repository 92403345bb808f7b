// Attachments kept in an S3-compatible store (docs/attachments.md) that two servers share: s3rver
// in a process of its own, spoken to over HTTP with the S3 protocol, multipart uploads of a stream.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RowDataPacket } from "mysql2";
import { parseS3Url, S3Store } from "@erp/server/attachment-stores";
import { purgeExpired } from "@erp/server/housekeeping";
import { Api, create } from "@erp/testing/api";
import {
  attachmentRows,
  contentDigest,
  download,
  eventually,
  patterned,
  streamOf,
  upload,
} from "@erp/testing/attachments";
import { closeTestDb, newCompany, testDb, type TestCompany } from "@erp/testing/company";
import { startS3Server, type S3Server } from "@erp/testing/s3-server";
import { type RunningServer, startServer } from "@erp/testing/server";

const PREFIX = "e2e";
let s3: S3Server;
let first: RunningServer;
let second: RunningServer;
let company: TestCompany;
let project: number;

beforeAll(async () => {
  s3 = await startS3Server();
  const env = { ...s3.env(PREFIX), ATTACHMENT_LINK_SECRETS: "shared-secret" };
  [first, second] = await Promise.all([startServer({ env }), startServer({ env })]);
  company = await newCompany();
  project = await create(new Api(first.baseUrl, company.token), "/v1/projects", { name: "Yard" });
});

afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop()]);
  await s3?.stop();
  await closeTestDb();
});

const objectKeys = async () => (await s3.keys()).filter((key) => key.startsWith(`${PREFIX}/`));
const keyOf = (row: RowDataPacket) => `${PREFIX}/${row.object_key}`;

describe("an S3-compatible store shared by two servers", () => {
  test("a multi-MB stream uploaded through one server (multipart) downloads byte-identical, whole and ranged, through the other", async () => {
    const bytes = patterned(12 * 1024 * 1024 + 5, 21);
    const made = await upload(
      first.baseUrl,
      company.token,
      `/v1/projects/${project}`,
      streamOf(bytes),
      {
        filename: "site-photos.zip",
        contentType: "application/zip",
        headers: { "content-digest": contentDigest(bytes) },
      },
    );
    expect(made.status).toBe(201);
    const id = made.body.data.id;
    const row = (await attachmentRows(company.companyId)).find((one) => one.id === id)!;
    expect(await objectKeys()).toContain(keyOf(row));
    const whole = await download(second.baseUrl, company.token, `/v1/attachments/${id}/content`);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("application/zip");
    expect(Buffer.from(whole.bytes).equals(Buffer.from(bytes))).toBe(true);
    const range = await download(second.baseUrl, company.token, `/v1/attachments/${id}/content`, {
      range: "bytes=5242870-5242899",
    });
    expect(range.status).toBe(206);
    expect(Buffer.from(range.bytes).equals(Buffer.from(bytes.subarray(5242870, 5242900)))).toBe(
      true,
    );
    const link = await new Api(first.baseUrl, company.token).post(`/v1/attachments/${id}/link`);
    const byLink = link.body.data.url.replace(first.baseUrl, second.baseUrl);
    const linked = await download(second.baseUrl, undefined, byLink, { range: "bytes=0-9" });
    expect(linked.status).toBe(206);
    expect(Buffer.from(linked.bytes).equals(Buffer.from(bytes.subarray(0, 10)))).toBe(true);
  });

  test("a delete through either server removes the object from the bucket", async () => {
    const made = await upload(
      second.baseUrl,
      company.token,
      `/v1/projects/${project}`,
      patterned(70_000),
    );
    const row = (await attachmentRows(company.companyId)).find(
      (one) => one.id === made.body.data.id,
    )!;
    expect(await objectKeys()).toContain(keyOf(row));
    const gone = await new Api(first.baseUrl, company.token).delete(`/v1/attachments/${row.id}`);
    expect(gone.status).toBe(200);
    expect(await objectKeys()).not.toContain(keyOf(row));
    expect(
      (await download(second.baseUrl, company.token, `/v1/attachments/${row.id}/content`)).status,
    ).toBe(404);
  });

  test("a wrong digest, a dry-run and a client that disconnects leave no row and no object", async () => {
    const before = await objectKeys();
    const rows = (await attachmentRows(company.companyId)).length;
    const bytes = patterned(6 * 1024 * 1024, 4);
    const wrong = await upload(
      first.baseUrl,
      company.token,
      `/v1/projects/${project}`,
      streamOf(bytes),
      {
        headers: { "content-digest": contentDigest(patterned(3)) },
      },
    );
    expect(wrong.status).toBe(422);
    const dry = await upload(first.baseUrl, company.token, `/v1/projects/${project}`, bytes, {
      headers: { "x-dry-run": "1" },
    });
    expect(dry.status).toBe(200);
    const socket = await Bun.connect({
      hostname: "127.0.0.1",
      port: second.port,
      socket: { data() {} },
    });
    socket.write(
      `POST /v1/projects/${project}/attachments?filename=cut.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Authorization: Bearer ${company.token}\r\nContent-Length: ${20 * 1024 * 1024}\r\n\r\n`,
    );
    let offset = 0;
    while (offset < bytes.length) {
      const written = socket.write(bytes.subarray(offset));
      offset += Math.max(0, written);
      if (written <= 0) await Bun.sleep(1);
    }
    await Bun.sleep(300);
    socket.terminate();
    expect(await eventually(objectKeys, (keys) => keys.length === before.length, 10_000)).toEqual(
      before,
    );
    expect((await attachmentRows(company.companyId)).length).toBe(rows);
  });

  test("the purge of a record deleted 90 days ago removes its attachments' objects", async () => {
    const api = new Api(first.baseUrl, company.token);
    const machine = await create(api, "/v1/equipment", { name: "Crane" });
    const made = await upload(
      first.baseUrl,
      company.token,
      `/v1/equipment/${machine}`,
      patterned(9000),
    );
    const row = (await attachmentRows(company.companyId)).find(
      (one) => one.id === made.body.data.id,
    )!;
    expect((await api.delete(`/v1/equipment/${machine}`)).status).toBe(200);
    await testDb().pool.query(
      "UPDATE equipment SET updated_at = NOW(3) - INTERVAL 91 DAY, deleted_at = NOW(3) - INTERVAL 91 DAY WHERE id = ?",
      [machine],
    );
    const env = s3.env(PREFIX);
    await purgeExpired(testDb().db, new S3Store(parseS3Url(env.ATTACHMENTS_STORE!), env));
    expect(await objectKeys()).not.toContain(keyOf(row));
    expect((await attachmentRows(company.companyId)).some((one) => one.id === row.id)).toBe(false);
  });
});
