// Attachments on records (docs/attachments.md), kept in a directory store: uploads streamed and
// checked, downloads whole and ranged, the record's lifecycle, quotas, links, and what a refused or
// broken upload leaves behind (nothing).
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DirectoryStore } from "@erp/server/attachment-stores";
import { purgeExpired } from "@erp/server/housekeeping";
import { create, type Api } from "@erp/testing/api";
import {
  attachmentRows,
  contentDigest,
  download,
  eventually,
  filesUnder,
  patterned,
  streamOf,
  upload,
} from "@erp/testing/attachments";
import { erpFor, erpOnTerminal, tempDir } from "@erp/testing/cli";
import { newCompany, newToken, testDb, type TestCompany } from "@erp/testing/company";
import { lengthUpload } from "@erp/testing/raw-http";
import { expectProblem } from "@erp/testing/rules";
import { useServer } from "@erp/testing/suite";
import { ErpClient, ValidationError } from "../sdk/mod.ts";

const root = mkdtempSync(path.join(tmpdir(), "erp-attachments-"));
const suite = useServer({
  env: { ATTACHMENTS_STORE: root, ATTACHMENT_LINK_SECRETS: "secret-one" },
});
let company: TestCompany;
let api: Api;
let project: number;

beforeAll(async () => {
  company = await newCompany();
  api = suite.api.as(company.token);
  project = await create(api, "/v1/projects", { name: "Depot" });
});

const base = () => suite.server.baseUrl;
const objects = () => filesUnder(root, "objects");
const temporary = () => filesUnder(root, "tmp");

describe("uploading and downloading", () => {
  test("a multi-MB stream is stored as it comes and downloads byte-identical, with safe download headers", async () => {
    const bytes = patterned(6 * 1024 * 1024 + 123);
    const made = await upload(base(), company.token, `/v1/projects/${project}`, streamOf(bytes), {
      filename: "Prüfbericht été 😀.pdf",
      contentType: "application/pdf",
    });
    expect(made.status).toBe(201);
    const data = made.body.data;
    expect(data).toMatchObject({
      resource: "projects",
      record_id: project,
      filename: "Prüfbericht été 😀.pdf",
      content_type: "application/pdf",
      size: bytes.length,
      sha256: new Bun.CryptoHasher("sha256").update(bytes).digest("hex"),
      dry_run: false,
    });
    expect(made.headers.get("location")).toBe(`/v1/attachments/${data.id}`);
    const got = await download(base(), company.token, `/v1/attachments/${data.id}/content`);
    expect(got.status).toBe(200);
    expect(Buffer.from(got.bytes).equals(Buffer.from(bytes))).toBe(true);
    expect(got.headers.get("content-type")).toBe("application/pdf");
    expect(got.headers.get("etag")).toBe(`"${data.sha256}"`);
    expect(got.headers.get("x-content-type-options")).toBe("nosniff");
    expect(got.headers.get("content-security-policy")).toBe("sandbox");
    expect(got.headers.get("content-disposition")).toBe(
      `attachment; filename="Pr_fbericht _t_ _.pdf"; filename*=UTF-8''${encodeURIComponent("Prüfbericht été 😀.pdf")}`,
    );
    expect((await api.get(`/v1/attachments/${data.id}`)).body.data).toEqual({
      id: data.id,
      resource: "projects",
      record_id: project,
      filename: data.filename,
      content_type: "application/pdf",
      size: bytes.length,
      sha256: data.sha256,
      created_at: data.created_at,
    });
    const list = await api.get(`/v1/projects/${project}/attachments`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((one: { id: number }) => one.id)).toContain(data.id);
    expect(temporary()).toEqual([]);
  });

  test("Range requests are answered 206 with the bytes asked for; a range past the end is 416", async () => {
    const bytes = patterned(100_000, 3);
    const { body } = await upload(base(), company.token, `/v1/projects/${project}`, bytes);
    const content = `/v1/attachments/${body.data.id}/content`;
    const part = await download(base(), company.token, content, { range: "bytes=1000-1999" });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 1000-1999/${bytes.length}`);
    expect(Buffer.from(part.bytes).equals(Buffer.from(bytes.subarray(1000, 2000)))).toBe(true);
    const tail = await download(base(), company.token, content, { range: "bytes=-10" });
    expect(tail.status).toBe(206);
    expect(Buffer.from(tail.bytes).equals(Buffer.from(bytes.subarray(bytes.length - 10)))).toBe(
      true,
    );
    const open = await download(base(), company.token, content, { range: "bytes=99990-" });
    expect(open.bytes.length).toBe(10);
    const outside = await download(base(), company.token, content, { range: "bytes=200000-" });
    expect(outside.status).toBe(416);
    expect(outside.headers.get("content-range")).toBe(`bytes */${bytes.length}`);
    const same = await download(base(), company.token, content, {
      "if-none-match": `"${body.data.sha256}"`,
    });
    expect(same.status).toBe(304);
  });

  test("a matching Content-Digest is accepted; a wrong one is 422 digest_mismatch and leaves no row, object or temporary file", async () => {
    const bytes = patterned(300_000, 11);
    const ok = await upload(base(), company.token, `/v1/projects/${project}`, bytes, {
      headers: { "content-digest": contentDigest(bytes) },
    });
    expect(ok.status).toBe(201);
    const rows = (await attachmentRows(company.companyId)).length;
    const stored = objects().length;
    const wrong = await upload(base(), company.token, `/v1/projects/${project}`, streamOf(bytes), {
      headers: { "content-digest": contentDigest(patterned(10)) },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.code).toBe("digest_mismatch");
    expect((await attachmentRows(company.companyId)).length).toBe(rows);
    expect(objects().length).toBe(stored);
    expect(temporary()).toEqual([]);
  });

  test("a declared length over 100 MiB is 413 payload_too_large before a byte is stored", async () => {
    const rows = (await attachmentRows(company.companyId)).length;
    const answer = await lengthUpload(
      suite.server.port,
      `/v1/projects/${project}/attachments?filename=big.bin`,
      { authorization: `Bearer ${company.token}`, "content-type": "application/octet-stream" },
      100 * 1024 * 1024 + 1,
    );
    expect(answer.status).toBe(413);
    expect(answer.body).toContain("payload_too_large");
    expect(answer.body).toContain("104857600");
    expect(answer.bytesWritten).toBeLessThan(50 * 1024 * 1024);
    expect((await attachmentRows(company.companyId)).length).toBe(rows);
    expect(temporary()).toEqual([]);
  });

  test("a chunked body is stopped at 100 MiB: 413, nothing kept", async () => {
    const rows = (await attachmentRows(company.companyId)).length;
    const stored = objects().length;
    const big = 100 * 1024 * 1024 + 64 * 1024;
    let sent = 0;
    const chunk = new Uint8Array(1024 * 1024);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= big) return controller.close();
        const size = Math.min(chunk.length, big - sent);
        controller.enqueue(chunk.subarray(0, size));
        sent += size;
      },
    });
    const answer = await upload(base(), company.token, `/v1/projects/${project}`, body).catch(
      () => undefined,
    );
    if (answer) {
      expect(answer.status).toBe(413);
      expect(answer.body.code).toBe("payload_too_large");
    }
    expect((await attachmentRows(company.companyId)).length).toBe(rows);
    expect(
      await eventually(
        () => objects().length,
        (n) => n === stored,
      ),
    ).toBe(stored);
    expect(await eventually(temporary, (files) => files.length === 0)).toEqual([]);
  });

  test("a client that disconnects mid-upload leaves no row, object or temporary file", async () => {
    const rows = (await attachmentRows(company.companyId)).length;
    const stored = objects().length;
    const socket = await Bun.connect({
      hostname: "127.0.0.1",
      port: suite.server.port,
      socket: { data() {} },
    });
    socket.write(
      [
        `POST /v1/projects/${project}/attachments?filename=half.bin HTTP/1.1`,
        "Host: 127.0.0.1",
        `Authorization: Bearer ${company.token}`,
        "Content-Type: application/octet-stream",
        `Content-Length: ${10 * 1024 * 1024}`,
        "",
        "",
      ].join("\r\n"),
    );
    const part = patterned(1024 * 1024);
    let offset = 0;
    while (offset < part.length) offset += Math.max(0, socket.write(part.subarray(offset)));
    // The upload is under way: its temporary file exists.
    expect(await eventually(temporary, (files) => files.length === 1)).toHaveLength(1);
    socket.terminate();
    expect(await eventually(temporary, (files) => files.length === 0)).toEqual([]);
    expect(objects().length).toBe(stored);
    expect((await attachmentRows(company.companyId)).length).toBe(rows);
  });

  test("an empty file is stored and downloads empty", async () => {
    const made = await upload(base(), company.token, `/v1/projects/${project}`, new Uint8Array(0), {
      filename: "empty.txt",
    });
    expect(made.status).toBe(201);
    expect(made.body.data.size).toBe(0);
    const got = await download(
      base(),
      company.token,
      `/v1/attachments/${made.body.data.id}/content`,
    );
    expect(got.status).toBe(200);
    expect(got.bytes.length).toBe(0);
    expect(await eventually(temporary, (files) => files.length === 0)).toEqual([]);
  });

  test("a dry-run checks and answers what would be stored, and stores nothing", async () => {
    const rows = (await attachmentRows(company.companyId)).length;
    const stored = objects().length;
    const bytes = patterned(50_000);
    const dry = await upload(base(), company.token, `/v1/projects/${project}`, bytes, {
      headers: { "x-dry-run": "1" },
      filename: "plan.txt",
      contentType: "text/plain",
    });
    expect(dry.status).toBe(200);
    expect(dry.body.data).toMatchObject({
      id: null,
      created_at: null,
      dry_run: true,
      size: 50_000,
    });
    expect((await attachmentRows(company.companyId)).length).toBe(rows);
    expect(objects().length).toBe(stored);
    expect(temporary()).toEqual([]);
  });

  test("an Idempotency-Key stores the file once; a retry is replayed", async () => {
    const bytes = patterned(20_000, 5);
    const headers = { "idempotency-key": `att-${crypto.randomUUID()}` };
    const first = await upload(base(), company.token, `/v1/projects/${project}`, bytes, {
      headers,
    });
    const stored = objects().length;
    const again = await upload(base(), company.token, `/v1/projects/${project}`, bytes, {
      headers,
    });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(objects().length).toBe(stored);
    const other = await upload(base(), company.token, `/v1/projects/${project}`, patterned(10), {
      headers,
    });
    expect(other.status).toBe(409);
    expect(other.body.code).toBe("idempotency_key_reuse");
  });

  test("a filename is required and refused with control characters", async () => {
    const missing = await fetch(`${base()}/v1/projects/${project}/attachments`, {
      method: "POST",
      headers: { authorization: `Bearer ${company.token}` },
      body: "x",
    });
    expect(missing.status).toBe(400);
    const bad = await upload(base(), company.token, `/v1/projects/${project}`, "x", {
      filename: "a\u0001b",
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_query");
  });
});

describe("deleting, links and the record's lifecycle", () => {
  test("DELETE removes the row and the object", async () => {
    const { body } = await upload(
      base(),
      company.token,
      `/v1/projects/${project}`,
      patterned(1000),
    );
    const key = (await attachmentRows(company.companyId)).find(
      (row) => row.id === body.data.id,
    )!.object_key;
    const dry = await api.delete(`/v1/attachments/${body.data.id}?dry_run=1`);
    expect(dry.body.data).toEqual({ id: body.data.id, deleted: false, dry_run: true });
    expect(objects()).toContain(path.join("objects", ...key.split("/")));
    const gone = await api.delete(`/v1/attachments/${body.data.id}`);
    expect(gone.status).toBe(200);
    expect(gone.body.data).toEqual({ id: body.data.id, deleted: true, dry_run: false });
    expect(objects()).not.toContain(path.join("objects", ...key.split("/")));
    expectProblem(await api.get(`/v1/attachments/${body.data.id}`), 404, "not_found");
  });

  test("a signed link serves the bytes without a token; a tampered or expired one is 404", async () => {
    const bytes = patterned(5000, 9);
    const { body } = await upload(base(), company.token, `/v1/projects/${project}`, bytes);
    const link = await api.post(`/v1/attachments/${body.data.id}/link?expires_in=60`);
    expect(link.status).toBe(200);
    const expires = Date.parse(link.body.data.expires_at);
    expect(expires - Date.now()).toBeLessThanOrEqual(61_000);
    const got = await download(base(), undefined, link.body.data.url);
    expect(got.status).toBe(200);
    expect(Buffer.from(got.bytes).equals(Buffer.from(bytes))).toBe(true);
    const tampered = link.body.data.url.replace(
      /signature=(.)/,
      (_: string, first: string) => `signature=${first === "x" ? "y" : "x"}`,
    );
    expect((await download(base(), undefined, tampered)).status).toBe(404);
    const longer = link.body.data.url.replace(
      /expires=(\d+)/,
      (_: string, n: string) => `expires=${Number(n) + 1}`,
    );
    expect((await download(base(), undefined, longer)).status).toBe(404);
    expect((await api.post(`/v1/attachments/${body.data.id}/link?expires_in=901`)).status).toBe(
      400,
    );
  });

  test("a soft-deleted record's attachments are 404 and come back with its restore; the purge removes them and their objects", async () => {
    const owner = await newCompany();
    const client = suite.api.as(owner.token);
    const worker = await create(client, "/v1/workers", { name: "Card holder" });
    const { body } = await upload(base(), owner.token, `/v1/workers/${worker}`, patterned(2048), {
      filename: "safety-card.jpg",
      contentType: "image/jpeg",
    });
    const id = body.data.id;
    expect((await client.delete(`/v1/workers/${worker}`)).status).toBe(200);
    for (const route of [`/v1/attachments/${id}`, `/v1/attachments/${id}/content`])
      expectProblem(await client.get(route), 404, "not_found");
    expectProblem(await client.get(`/v1/workers/${worker}/attachments`), 404, "not_found");
    expect((await client.post(`/v1/workers/${worker}/restore`)).status).toBe(200);
    expect((await client.get(`/v1/attachments/${id}`)).status).toBe(200);
    expect((await client.delete(`/v1/workers/${worker}`)).status).toBe(200);
    const [row] = await attachmentRows(owner.companyId);
    await testDb().pool.query(
      "UPDATE workers SET updated_at = NOW(3) - INTERVAL 91 DAY, deleted_at = NOW(3) - INTERVAL 91 DAY WHERE id = ?",
      [worker],
    );
    await purgeExpired(testDb().db, new DirectoryStore(root));
    expect(await attachmentRows(owner.companyId)).toEqual([]);
    expect(objects()).not.toContain(path.join("objects", ...row!.object_key.split("/")));
  });
});

describe("events", () => {
  test("attachment.created and attachment.deleted carry the metadata only; a narrow token's feed leaves them out", async () => {
    const owner = await newCompany();
    const client = suite.api.as(owner.token);
    const site = await create(client, "/v1/projects", { name: "Evented" });
    const start = (await client.get("/v1/events?after=latest")).body.meta.next_cursor;
    const { body } = await upload(base(), owner.token, `/v1/projects/${site}`, patterned(321), {
      filename: "estimate-signed.pdf",
    });
    expect((await client.delete(`/v1/attachments/${body.data.id}`)).status).toBe(200);
    const feed = await client.get(`/v1/events?after=${start}&resource=attachments`);
    expect(feed.status).toBe(200);
    expect(feed.body.data.map((event: { type: string }) => event.type)).toEqual([
      "attachment.created",
      "attachment.deleted",
    ]);
    const [created] = feed.body.data;
    expect(created.record_id).toBe(body.data.id);
    expect(created.data.record).toEqual({
      id: body.data.id,
      resource: "projects",
      record_id: site,
      filename: "estimate-signed.pdf",
      content_type: "application/octet-stream",
      size: 321,
      sha256: body.data.sha256,
      created_at: body.data.created_at,
    });
    expect(JSON.stringify(feed.body)).not.toContain("object_key");
    const narrow = suite.api.as(
      await newToken(owner.companyId, { scopes: ["projects:read", "events:read"] }),
    );
    const seen = await narrow.get(`/v1/events?after=${start}`);
    expect(seen.body.data.map((event: { type: string }) => event.type)).toEqual([]);
    expectProblem(await narrow.get(`/v1/events?resource=attachments`), 403, "insufficient_scope");
  });
});

describe("walls, scopes and quotas", () => {
  test("another company's attachment ids are 404 on every route", async () => {
    const { body } = await upload(base(), company.token, `/v1/projects/${project}`, patterned(100));
    const stranger = suite.api.as((await newCompany()).token);
    const id = body.data.id;
    for (const response of [
      await stranger.get(`/v1/attachments/${id}`),
      await stranger.get(`/v1/attachments/${id}/content`),
      await stranger.delete(`/v1/attachments/${id}`),
      await stranger.post(`/v1/attachments/${id}/link`),
      await stranger.get(`/v1/projects/${project}/attachments`),
    ])
      expectProblem(response, 404, "not_found");
    const foreign = await upload(
      base(),
      (await newCompany()).token,
      `/v1/projects/${project}`,
      "x",
    );
    expect(foreign.status).toBe(404);
    expect((await api.get(`/v1/attachments/${id}`)).status).toBe(200);
  });

  test("the record's resource scopes guard its attachments", async () => {
    const { body } = await upload(base(), company.token, `/v1/projects/${project}`, patterned(100));
    const workersOnly = suite.api.as(
      await newToken(company.companyId, { scopes: ["workers:write"] }),
    );
    expectProblem(
      await workersOnly.get(`/v1/attachments/${body.data.id}`),
      403,
      "insufficient_scope",
    );
    expectProblem(
      await workersOnly.get(`/v1/projects/${project}/attachments`),
      403,
      "insufficient_scope",
    );
    const reader = await newToken(company.companyId, { scopes: ["projects:read"] });
    expect((await suite.api.as(reader).get(`/v1/attachments/${body.data.id}/content`)).status).toBe(
      200,
    );
    const refused = await upload(base(), reader, `/v1/projects/${project}`, "x");
    expect(refused.status).toBe(403);
    expectProblem(
      await suite.api.as(reader).delete(`/v1/attachments/${body.data.id}`),
      403,
      "insufficient_scope",
    );
  });

  test("the plan's storage quota: usage shows the bytes, and a file past the plan is 402 quota_exceeded", async () => {
    const free = await newCompany({ plan: "free" });
    const client = suite.api.as(free.token);
    const site = await create(client, "/v1/projects", { name: "Small" });
    expect((await upload(base(), free.token, `/v1/projects/${site}`, patterned(4096))).status).toBe(
      201,
    );
    const usage = await client.get("/v1/usage");
    expect(usage.body.data.storage).toEqual({ used: 4096, limit: 100 * 1024 * 1024 });
    const over = await lengthUpload(
      suite.server.port,
      `/v1/projects/${site}/attachments?filename=big.bin`,
      { authorization: `Bearer ${free.token}` },
      100 * 1024 * 1024,
    );
    expect(over.status).toBe(402);
    expect(over.body).toContain("quota_exceeded");
    expect((await attachmentRows(free.companyId)).length).toBe(1);
  });
});

describe("the SDK", () => {
  test("uploads a Blob, a Uint8Array and a ReadableStream, lists, reads, downloads as a stream, links and deletes", async () => {
    const erp = new ErpClient({ baseUrl: base(), token: company.token });
    const worker = await create(api, "/v1/workers", { name: "Uploader" });
    const bytes = patterned(3 * 1024 * 1024 + 17, 13);
    const fromBlob = await erp.workers
      .attachments(worker)
      .upload(new Blob([bytes], { type: "image/png" }), { filename: "card.png" });
    expect(fromBlob).toMatchObject({
      content_type: "image/png",
      size: bytes.length,
      dry_run: false,
    });
    const fromBytes = await erp.workers.attachments(worker).upload(bytes.subarray(0, 1000), {
      filename: "part.bin",
      contentDigest: contentDigest(bytes.subarray(0, 1000)),
    });
    const fromStream = await erp.workers
      .attachments(worker)
      .upload(streamOf(bytes), { filename: "stream.bin", contentType: "application/octet-stream" });
    expect(fromStream.sha256).toBe(fromBlob.sha256);
    await expect(
      erp.workers
        .attachments(worker)
        .upload(bytes, { filename: "bad.bin", contentDigest: contentDigest(patterned(1)) }),
    ).rejects.toBeInstanceOf(ValidationError);
    const listed: (number | null)[] = [];
    for await (const one of erp.workers.attachments(worker).list()) listed.push(one.id);
    expect(listed).toEqual([fromBlob.id, fromBytes.id, fromStream.id]);
    expect(await erp.attachments.get(fromBytes.id!)).toMatchObject({
      filename: "part.bin",
      size: 1000,
    });
    const whole = await erp.attachments.download(fromStream.id!);
    expect(whole.status).toBe(200);
    expect(
      Buffer.from(await new Response(whole.body).arrayBuffer()).equals(Buffer.from(bytes)),
    ).toBe(true);
    const part = await erp.attachments.download(fromStream.id!, { range: { start: 10, end: 19 } });
    expect(part.status).toBe(206);
    expect(
      Buffer.from(await new Response(part.body).arrayBuffer()).equals(
        Buffer.from(bytes.subarray(10, 20)),
      ),
    ).toBe(true);
    const link = await erp.attachments.link(fromBytes.id!, { expiresIn: 120 });
    expect((await fetch(link.url)).status).toBe(200);
    expect(await erp.attachments.delete(fromBytes.id!)).toEqual({
      id: fromBytes.id!,
      deleted: true,
      dry_run: false,
    });
  });
});

describe("the CLI", () => {
  test("erp attach uploads files; erp attachments list, download and delete", async () => {
    const erp = erpFor(base(), company.token);
    const dir = tempDir();
    const bytes = patterned(5 * 1024 * 1024 + 3, 17);
    const big = path.join(dir, "Baustelle 1.jpg");
    const small = path.join(dir, "note.txt");
    await Bun.write(big, bytes);
    await Bun.write(small, "pour on Monday");
    const client = await create(api, "/v1/clients", { name: "Filed" });
    const attached = await erp(["attach", "clients", String(client), big, small, "-o", "json"]);
    expect(attached.stderr).toBe("");
    expect(attached.code).toBe(0);
    const made = JSON.parse(attached.stdout);
    expect(made.map((one: { filename: string }) => one.filename)).toEqual([
      "Baustelle 1.jpg",
      "note.txt",
    ]);
    expect(made[0]).toMatchObject({ content_type: "image/jpeg", size: bytes.length });
    const listed = await erp(["attachments", "list", "clients", String(client), "-o", "json"]);
    expect(JSON.parse(listed.stdout).map((one: { id: number }) => one.id)).toEqual(
      made.map((one: { id: number }) => one.id),
    );
    const target = path.join(dir, "copy.jpg");
    const got = await erp(["attachments", "download", String(made[0].id), "-O", target]);
    expect(got.code).toBe(0);
    expect(Buffer.from(await Bun.file(target).arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    // No terminal (a script): as `erp <resource> delete`, nothing is deleted without --yes, exit 2.
    const unconfirmed = await erp(["attachments", "delete", String(made[1].id), "-o", "json"]);
    expect([unconfirmed.code, unconfirmed.stdout]).toEqual([2, ""]);
    expect(unconfirmed.stderr).toContain("pass --yes");
    expect((await erp(["attachments", "download", String(made[1].id), "-O", "-"])).stdout).toBe(
      await Bun.file(small).text(),
    );
    // On a terminal it asks: "n" keeps the file (exit 1), "y" deletes it.
    const onTerminal = (typed: string) =>
      erpOnTerminal(["attachments", "delete", String(made[0].id), "-o", "json"], typed, {
        ERP_BASE_URL: base(),
        ERP_TOKEN: company.token,
      });
    const declined = await onTerminal("n\n");
    expect(declined.screen).toContain(`Delete attachment ${made[0].id}? Type y to confirm:`);
    expect(declined.screen).toContain("not deleted");
    expect(declined.code).toBe(1);
    expect((await erp(["attachments", "download", String(made[0].id), "-O", "-"])).code).toBe(0);
    const confirmed = await onTerminal("y\n");
    expect(confirmed.screen).toContain('"deleted": true');
    expect(confirmed.code).toBe(0);
    expect((await erp(["attachments", "download", String(made[0].id), "-O", "-"])).code).toBe(1);
    const gone = await erp(["attachments", "delete", String(made[1].id), "--yes", "-o", "json"]);
    expect(JSON.parse(gone.stdout)).toMatchObject({ id: made[1].id, deleted: true });
    expect((await erp(["attach", "trades", "1", small])).code).toBe(2);
  });
});
