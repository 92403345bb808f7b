// The live-server suite, framework-free: Bun runs each check as a test, Node and Deno through run-checks.ts.
import {
  ApiConnectionError,
  AuthenticationError,
  ConflictError,
  ErpClient,
  MemoryJournal,
  NotFoundError,
  PreconditionFailedError,
  ValidationError,
} from "../../mod.ts";
import { assert, assertEqual, assertRejects } from "./assert.ts";

/** Where the server is and a token of a fresh company with every add-on. */
export interface LiveContext {
  baseUrl: string;
  token: string;
}

export interface Check {
  name: string;
  run(erp: ErpClient, context: LiveContext): Promise<void>;
}

const unique = (): string => crypto.randomUUID().slice(0, 8);

/** `length` random bytes (getRandomValues fills at most 64 KiB a call). */
function randomBytes(length: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(length);
  for (let at = 0; at < length; at += 65_536)
    crypto.getRandomValues(bytes.subarray(at, Math.min(at + 65_536, length)));
  return bytes;
}

async function sha256Hex(bytes: BufferSource): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A hex digest as the base64 that Content-Digest carries. */
function base64OfHex(hex: string): string {
  return btoa(String.fromCharCode(...(hex.match(/../g) ?? []).map((h) => Number.parseInt(h, 16))));
}

/** `bytes` as a stream of `size`-byte chunks, pulled as the reader asks. */
function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

export const checks: Check[] = [
  {
    name: "create, get and update a project; money comes back as a decimal string",
    async run(erp) {
      const made = await erp.projects.create({
        name: "Depot",
        budget_amount: 1250,
        code: `D-${unique()}`,
      });
      assert(made.created && typeof made.id === "number", "created with an id");
      const project = await erp.projects.get(made.id);
      assertEqual(project.budget_amount, "1250.00");
      assertEqual(project.status, "DRAFT");
      const upd = await erp.projects.update(made.id, { status: "ACTIVE" });
      assertEqual(upd.changes.status, { from: "DRAFT", to: "ACTIVE" });
      assertEqual(upd.record.status, "ACTIVE");
    },
  },
  {
    name: "batch() writes items in order and reports each; upsert() creates, then updates by external id",
    async run(erp) {
      const tag = unique();
      const result = await erp.workers.batch([
        { name: `Batch ${tag} 1`, external_id: `b-${tag}-1` },
        { name: "", email: "bad" },
        { name: `Batch ${tag} 3` },
      ]);
      assertEqual(
        result.results.map((item) => item.status),
        [201, 422, 201],
      );
      assertEqual(result.results[1]?.error?.code, "validation_failed");
      const again = await erp.workers.batch(
        [{ name: `Batch ${tag} 1 renamed`, external_id: `b-${tag}-1` }],
        { onConflict: "update" },
      );
      assertEqual(again.results[0]?.action, "updated");
      assertEqual(again.results[0]?.id, result.results[0]?.id);
      const created = await erp.clients.upsert(`crm-${tag}`, { name: `Upsert ${tag}` });
      assert(created.created && !created.updated, "the first upsert creates");
      const updated = await erp.clients.upsert(`crm-${tag}`, { name: `Upsert ${tag} 2` });
      assert(
        updated.updated && updated.record?.name === `Upsert ${tag} 2` && updated.id === created.id,
        "the second upsert updates the same record",
      );
    },
  },
  {
    name: "import() writes each row once: a bad row rejected, a re-run replays, update sends what differs",
    async run(erp) {
      const tag = unique();
      const rows = [
        { name: `Import ${tag} 1`, email: `i1-${tag}@example.com` },
        { name: `Import ${tag} 2`, email: "not-an-email" },
        { name: `Import ${tag} 3`, hourly_rate: "31.50" },
      ];
      const journal = new MemoryJournal();
      const results = [];
      for await (const result of erp.workers.import(rows, { journal, batchSize: 2 }))
        results.push(result);
      assertEqual(
        results.map((r) => r.status),
        ["created", "rejected", "created"],
      );
      assertEqual(
        results[1]!.error?.errors.map((e) => e.field),
        ["email"],
      );
      // Without the journal the server recognises the rows by their keys: nothing new.
      const again = await erp.workers.import(rows).done();
      assertEqual([again.replayed, again.rejected, again.created], [2, 1, 0]);
      const id = results[2]!.id!;
      const update = erp.workers.import(
        [
          { id, hourly_rate: "31.5", name: `Import ${tag} 3` },
          { id, hourly_rate: "33.00" },
        ],
        { mode: "update" },
      );
      const statuses = [];
      for await (const result of update) statuses.push(result.status);
      assertEqual(statuses, ["unchanged", "updated"]);
      assertEqual((await erp.workers.get(id)).hourly_rate, "33.00");
      // atomic: the batch with a refused row writes none of its rows.
      const atomic = [];
      for await (const result of erp.workers.import([rows[0]!, { name: "" }], { atomic: true }))
        atomic.push(`${result.status} ${result.error?.code}`);
      assertEqual(atomic, ["not_imported batch_failed", "rejected validation_failed"]);
    },
  },
  {
    name: "fields narrow get() and list() to the picked fields plus id",
    async run(erp) {
      const { id } = await erp.clients.create({
        name: `Narrow ${unique()}`,
        email: "a@example.com",
      });
      const one = await erp.clients.get(id, { fields: ["name"] });
      assertEqual(Object.keys(one).sort(), ["id", "name"]);
      const page = await erp.clients.listPage({ fields: ["email"], limit: 1 });
      assertEqual(Object.keys(page.data[0] ?? {}).sort(), ["email", "id"]);
    },
  },
  {
    name: "list() visits every matching record exactly once across pages",
    async run(erp) {
      const tag = unique();
      const ids = [];
      for (let i = 0; i < 7; i++)
        ids.push((await erp.workers.create({ name: `Paged ${tag} ${i}` })).id);
      const seen = [];
      for await (const worker of erp.workers.list({ q: tag, limit: 3, fields: ["name"] }))
        seen.push(worker.id);
      assertEqual(seen, ids);
      const first = await erp.workers.listPage({ q: tag, limit: 3 });
      assertEqual(first.meta, { total: 7, limit: 3, offset: 0 });
    },
  },
  {
    name: "a dry-run create validates but writes nothing",
    async run(erp) {
      const tag = unique();
      const preview = await erp.clients.create({ name: `Dry ${tag}` }, { dryRun: true });
      assertEqual(preview, { id: null, created: false, dry_run: true });
      assertEqual((await erp.clients.listPage({ q: tag })).meta.total, 0);
    },
  },
  {
    name: "repeating an idempotency key replays the first result",
    async run(erp) {
      const key = `live-${unique()}`;
      const first = await erp.estimates.create(
        { title: "Roof", amount: "99.5" },
        { idempotencyKey: key },
      );
      const again = await erp.estimates
        .create({ title: "Roof", amount: "99.5" }, { idempotencyKey: key })
        .withResponse();
      assertEqual(again.data.id, first.id);
      assert(again.response.replayed, "the second call is a replay");
      const reuse = await assertRejects(
        erp.estimates.create({ title: "Other" }, { idempotencyKey: key }),
        ConflictError,
      );
      assertEqual(reuse.code, "idempotency_key_reuse");
    },
  },
  {
    name: "get() revalidates with its remembered ETag and reuses the record on 304",
    async run(erp) {
      const { id } = await erp.subcontractors.create({ name: `Etag ${unique()}` });
      const first = await erp.subcontractors.get(id).withResponse();
      assertEqual(first.response.status, 200);
      const second = await erp.subcontractors.get(id).withResponse();
      assertEqual(second.response.status, 304);
      assertEqual(second.data, first.data);
      await erp.subcontractors.update(id, { status: "INACTIVE" });
      const third = await erp.subcontractors.get(id).withResponse();
      assertEqual([third.response.status, third.data.status], [200, "INACTIVE"]);
    },
  },
  {
    name: "ifMatch makes a write conditional: a stale ETag is a PreconditionFailedError",
    async run(erp) {
      const { id } = await erp.equipment.create({ name: `Crane ${unique()}` });
      const { response } = await erp.equipment.get(id).withResponse();
      await erp.equipment.update(id, { status: "IN_USE" }, { ifMatch: response.etag });
      const stale = await assertRejects(
        erp.equipment.update(id, { status: "MAINTENANCE" }, { ifMatch: response.etag }),
        PreconditionFailedError,
      );
      assertEqual(stale.status, 412);
    },
  },
  {
    name: "state rules surface as ConflictError with their code",
    async run(erp) {
      const { id } = await erp.projects.create({ name: "Rules" });
      const error = await assertRejects(
        erp.projects.update(id, { status: "COMPLETED" }),
        ConflictError,
      );
      assertEqual(error.code, "invalid_transition");
      assert(error.requestId, "carries the request id");
    },
  },
  {
    name: "a ValidationError lists every failing field at once",
    async run(erp) {
      const error = await assertRejects(
        erp.workers.create({ name: "Bad", email: "not-an-email", hourly_rate: "1.234" }),
        ValidationError,
      );
      assertEqual(error.errors.map((e) => e.field).sort(), ["email", "hourly_rate"]);
    },
  },
  {
    name: "delete: a dry run reports what would go, then the record is gone (NotFoundError)",
    async run(erp) {
      const { id } = await erp.clients.create({ name: `Gone ${unique()}` });
      const preview = await erp.clients.delete(id, { dryRun: true });
      assertEqual([preview.deleted, preview.dry_run, preview.mode], [false, true, "soft"]);
      assertEqual(preview.would_delete, [{ resource: "clients", id }]);
      assertEqual((await erp.clients.delete(id)).deleted, true);
      await assertRejects(erp.clients.get(id), NotFoundError);
    },
  },
  {
    name: "equipment rentals are created, listed and billed; a billed rental refuses changes",
    async run(erp) {
      const { id: equipmentId } = await erp.equipment.create({ name: `Loader ${unique()}` });
      const { id: projectId } = await erp.projects.create({ name: "Site" });
      const rentals = erp.equipment.rentals(equipmentId);
      const { id } = await rentals.create({
        project_id: projectId,
        start_date: "2026-03-01",
        daily_rate: 80,
      });
      const listed = await rentals.list().toArray();
      assertEqual(
        listed.map((r) => [r.id, r.equipment_id, r.daily_rate]),
        [[id, equipmentId, "80.00"]],
      );
      await rentals.update(id, { billed: true });
      assertEqual((await rentals.get(id)).billed, true);
      const error = await assertRejects(
        rentals.update(id, { end_date: "2026-03-09" }),
        ConflictError,
      );
      assertEqual(error.code, "rental_billed");
    },
  },
  {
    name: "attachments: a Blob of 3 MB uploads with its Content-Digest and an idempotency key, downloads byte-identical, and a range comes back as 206",
    async run(erp) {
      const bytes = randomBytes(3 * 1024 * 1024 + 17);
      const sha256 = await sha256Hex(bytes);
      const { id: projectId } = await erp.projects.create({ name: `Files ${unique()}` });
      const key = crypto.randomUUID();
      const upload = () =>
        erp.projects.attachments(projectId).upload(new Blob([bytes], { type: "image/png" }), {
          filename: "façade före.png",
          contentDigest: `sha-256=:${base64OfHex(sha256)}:`,
          idempotencyKey: key,
        });
      const made = await upload();
      assertEqual([made.size, made.sha256, made.content_type], [bytes.length, sha256, "image/png"]);
      assertEqual(made.filename, "façade före.png");
      const again = await upload().withResponse();
      assertEqual([again.data.id, again.response.replayed], [made.id, true]);
      const whole = await erp.attachments.download(made.id!);
      assertEqual([whole.status, whole.size, whole.contentType], [200, bytes.length, "image/png"]);
      assert(whole.etag !== null, "the download's ETag is readable");
      assertEqual(await sha256Hex(await new Response(whole.body).arrayBuffer()), sha256);
      const part = await erp.attachments.download(made.id!, { range: { start: 10, end: 19 } });
      assertEqual([part.status, part.size], [206, 10]);
      assertEqual(
        [...new Uint8Array(await new Response(part.body).arrayBuffer())],
        [...bytes.subarray(10, 20)],
      );
    },
  },
  {
    name: "attachments: a Uint8Array and a ReadableStream upload and download byte-identical",
    async run(erp) {
      const { id: workerId } = await erp.workers.create({ name: `Card ${unique()}` });
      const files = erp.workers.attachments(workerId);
      const array = randomBytes(200_000);
      const fromArray = await files.upload(array, { filename: "card.bin" });
      assertEqual(fromArray.content_type, "application/octet-stream");
      const streamed = randomBytes(2 * 1024 * 1024 + 5);
      const fromStream = await files.upload(chunked(streamed, 64 * 1024), {
        filename: "scan.pdf",
        contentType: "application/pdf",
      });
      assertEqual(
        [fromStream.size, fromStream.sha256],
        [streamed.length, await sha256Hex(streamed)],
      );
      for (const [made, bytes] of [
        [fromArray, array],
        [fromStream, streamed],
      ] as const) {
        const download = await erp.attachments.download(made.id!);
        assertEqual(
          await sha256Hex(await new Response(download.body).arrayBuffer()),
          await sha256Hex(bytes),
        );
      }
      const listed = [];
      for await (const file of files.list()) listed.push(file.filename);
      assertEqual(listed, ["card.bin", "scan.pdf"]);
      await erp.attachments.delete(fromArray.id!);
      await assertRejects(erp.attachments.get(fromArray.id!), NotFoundError);
    },
  },
  {
    name: "lookups and usage are readable",
    async run(erp) {
      assert((await erp.trades.list().toArray()).length > 0, "trades are seeded");
      assert(
        (await erp.equipmentCategories.listPage({ limit: 2 })).data.length === 2,
        "categories page",
      );
      const usage = await erp.usage();
      assert(/^\d{4}-\d{2}$/.test(usage.period), "period is YYYY-MM");
      assert(typeof usage.quotas.projects.used === "number", "project quota is reported");
    },
  },
  {
    name: "a wrong token is an AuthenticationError",
    async run(_erp, { baseUrl }) {
      const stranger = new ErpClient({ baseUrl, token: "erp_not_a_token" });
      const error = await assertRejects(stranger.projects.listPage(), AuthenticationError);
      assertEqual(error.code, "unauthorized");
    },
  },
  {
    name: "an unreachable server is an ApiConnectionError naming the method, the URL and the cause",
    async run() {
      // Port 2 on loopback: nothing listens there, and fetch does not block it as it does 1 or 9.
      const nowhere = new ErpClient({
        baseUrl: "http://127.0.0.1:2",
        token: "erp_x",
        maxRetries: 0,
      });
      const error = await assertRejects(nowhere.projects.get(7), ApiConnectionError);
      assert(
        error.message.includes("GET http://127.0.0.1:2/v1/projects/7"),
        `the message names the request: ${error.message}`,
      );
      // Browsers hide the cause from scripts by design ("Failed to fetch"); every other runtime names it.
      const inBrowser = typeof (globalThis as { document?: unknown }).document !== "undefined";
      if (!inBrowser)
        assert(
          /refused|ECONNREFUSED|connect/i.test(error.message),
          `the message names the cause: ${error.message}`,
        );
    },
  },
];
