// What a server killed mid-upload leaves in the attachments store, and the sweep that removes it
// (docs/attachments.md, "After a crash"): a server is killed with SIGKILL while a file streams in,
// another starts on the same database and store, and once the upload's key is older than any
// upload can be, nothing is left of it: no row, no object, no temporary file, no loose key.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseS3Url, S3Store } from "@erp/server/attachment-stores";
import { Api, create } from "@erp/testing/api";
import {
  ageLooseKeys,
  attachmentRows,
  eventually,
  filesUnder,
  looseKeys,
  partialUpload,
  patterned,
  upload,
} from "@erp/testing/attachments";
import { closeTestDb, newCompany, testDb, type TestCompany } from "@erp/testing/company";
import { startS3Server, type S3Server } from "@erp/testing/s3-server";
import { type RunningServer, startServer } from "@erp/testing/server";

setDefaultTimeout(90_000);

const MiB = 1024 * 1024;
const servers: RunningServer[] = [];
const roots: string[] = [];
let s3: S3Server;

async function server(env: Record<string, string>): Promise<RunningServer> {
  const started = await startServer({ env });
  servers.push(started);
  return started;
}

beforeAll(async () => {
  s3 = await startS3Server();
});

afterAll(async () => {
  await Promise.all(servers.map((one) => one.stop("SIGKILL")));
  await s3?.stop();
  for (const root of roots) rmSync(root, { recursive: true, force: true });
  await closeTestDb();
});

/** A company with a project, and one attachment kept whole (the sweep must leave it). */
async function companyWithFile(baseUrl: string) {
  const company = await newCompany();
  const project = await create(new Api(baseUrl, company.token), "/v1/projects", { name: "Site" });
  const kept = await upload(baseUrl, company.token, `/v1/projects/${project}`, patterned(70_000));
  expect(kept.status).toBe(201);
  return { company, recordPath: `/v1/projects/${project}`, keptId: kept.body.data.id as number };
}

/** Kills `victim` with SIGKILL once an upload through it is `underWay` (has stored some bytes). */
async function killMidUpload(
  victim: RunningServer,
  company: TestCompany,
  recordPath: string,
  underWay: () => Promise<boolean> | boolean,
) {
  const socket = await partialUpload(victim.port, company.token, recordPath, {
    total: 40 * MiB,
    sent: 12 * MiB,
  });
  expect(await eventually(underWay, (yes) => yes, 20_000)).toBe(true);
  expect(await victim.stop("SIGKILL")).not.toBe(0);
  socket.terminate();
}

describe("a server killed mid-upload", () => {
  test("directory store: its temporary file and loose key stay until they are old enough, then a restarted server sweeps them; the kept file stays", async () => {
    const root = mkdtempSync(path.join(tmpdir(), "erp-attachments-crash-"));
    roots.push(root);
    const env = { ATTACHMENTS_STORE: root };
    const first = await server(env);
    const { company, recordPath, keptId } = await companyWithFile(first.baseUrl);
    const temporary = () => filesUnder(root, "tmp");
    const objects = () => filesUnder(root, "objects");
    const objectsBefore = objects();
    const partBytes = () =>
      temporary().reduce((sum, file) => sum + Bun.file(path.join(root, file)).size, 0);
    await killMidUpload(first, company, recordPath, () => partBytes() >= 4 * MiB);
    // What the crash left: a temporary file, its key written down as loose, no row.
    expect(temporary()).toHaveLength(1);
    expect(await looseKeys(company.companyId)).toHaveLength(1);
    expect((await attachmentRows(company.companyId)).map((row) => row.id)).toEqual([keptId]);

    // A restart within the day leaves it: an upload in progress may be that old.
    const second = await server(env);
    await Bun.sleep(1_000);
    expect(temporary()).toHaveLength(1);
    expect(await looseKeys(company.companyId)).toHaveLength(1);
    await second.stop();

    await ageLooseKeys(company.companyId, 25);
    const third = await server(env);
    expect(await eventually(temporary, (files) => files.length === 0, 10_000)).toEqual([]);
    expect(
      await eventually(
        () => looseKeys(company.companyId),
        (keys) => keys.length === 0,
      ),
    ).toEqual([]);
    expect(objects()).toEqual(objectsBefore);
    expect((await attachmentRows(company.companyId)).map((row) => row.id)).toEqual([keptId]);
    const kept = await fetch(`${third.baseUrl}/v1/attachments/${keptId}/content`, {
      headers: { authorization: `Bearer ${company.token}` },
    });
    expect(kept.status).toBe(200);
    expect((await kept.arrayBuffer()).byteLength).toBe(70_000);
  });
});

describe("an S3-compatible store", () => {
  test("a killed multipart upload and a whole object whose row never committed leave no object, row or loose key after the sweep", async () => {
    const env = s3.env("crash");
    const first = await server(env);
    const { company, recordPath, keptId } = await companyWithFile(first.baseUrl);
    const objectKeys = async () => (await s3.keys()).filter((key) => key.startsWith("crash/"));
    const objectsBefore = await objectKeys();
    const loose = () => looseKeys(company.companyId);
    // Under way once its key is written down; a second later a part (5 MiB) or more has gone out.
    await killMidUpload(first, company, recordPath, async () => {
      if ((await loose()).length === 0) return false;
      await Bun.sleep(1_000);
      return true;
    });
    expect(await loose()).toHaveLength(1);
    // A crash after the multipart upload completed, before the row committed: a whole object
    // under a loose key.
    const store = new S3Store(parseS3Url(env.ATTACHMENTS_STORE!), env);
    const orphan = `${company.companyId}/${crypto.randomUUID()}`;
    await testDb().pool.query("INSERT INTO loose_objects (object_key) VALUES (?)", [orphan]);
    const whole = store.begin(orphan, "application/octet-stream");
    await whole.write(patterned(6 * MiB, 9));
    await whole.finish();
    expect(await objectKeys()).toContain(`crash/${orphan}`);
    expect((await attachmentRows(company.companyId)).map((row) => row.id)).toEqual([keptId]);

    await ageLooseKeys(company.companyId, 25);
    const second = await server(env);
    expect(await eventually(loose, (keys) => keys.length === 0, 10_000)).toEqual([]);
    expect(await objectKeys()).toEqual(objectsBefore);
    expect((await attachmentRows(company.companyId)).map((row) => row.id)).toEqual([keptId]);
    const kept = await fetch(`${second.baseUrl}/v1/attachments/${keptId}/content`, {
      headers: { authorization: `Bearer ${company.token}` },
    });
    expect(kept.status).toBe(200);
    expect((await kept.arrayBuffer()).byteLength).toBe(70_000);
  });
});
