// POST /v1/{resource}/{id}/attachments?filename=: the file is the raw body, streamed to the store as
// it arrives, and a row is written only once its bytes are stored whole and checked; a refusal, a
// failed check or a client that goes away leaves nothing, and what a crash leaves is swept (its key
// is written down as loose until the row commits: attachments/loose-objects.ts; docs/attachments.md).
// The write then runs like any other (writes/execute-write.ts): one transaction, the record locked
// live, the plan's storage quota, the Idempotency-Key (its fingerprint is the path, the name, the
// type and the bytes' SHA-256) and the event.
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { STORAGE_BYTES } from "../auth/plans.ts";
import type { Company } from "../auth/company.ts";
import { expectedDigests, MAX_FILE_BYTES, receive, type Received } from "../attachments/receive.ts";
import { type Attachment, storedBytes, toAttachment } from "../attachments/rows.ts";
import { crossOutStatement, discard, holdLoose, markLoose } from "../attachments/loose-objects.ts";
import { currentUsage, REQUEST_BUDGET_MS, withDatabaseBudget } from "../db/deadline.ts";
import { selectRows } from "../db/sql.ts";
import type { RequestContext } from "../http/request-context.ts";
import { parseQuery } from "../http/query.ts";
import { holdOpen } from "../http/hold-open.ts";
import {
  fileTooLarge,
  invalidQuery,
  notFound,
  storageQuotaExceeded,
} from "../refusals/catalogue.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { recordExists } from "../resources/store.ts";
import type { WriteTransaction } from "../db/write-transaction.ts";
import { fingerprintOf } from "../writes/fingerprint.ts";
import { checkIdempotencyKey } from "../writes/idempotency.ts";
import { WritePlan } from "../writes/plan.ts";
import type { AttachmentDeps } from "./attachment-deps.ts";
import { executeCallWrite, parseId, sendWriteAnswer, writeParsers } from "./route-context.ts";
import { documented } from "../http/query.ts";

export const uploadParsers = {
  filename: documented((value) => value, {
    required: true,
    description:
      "The file's name as it is to be downloaded: 1-255 characters, no control characters, no `/` or `\\`.",
    schema: {
      type: "string",
      minLength: 1,
      maxLength: 255,
      examples: ["certificate-of-insurance.pdf"],
    },
  }),
  ...writeParsers,
};

/** How long an upload may take in all: 100 MiB at a slow 200 KiB/s. */
const UPLOAD_SECONDS = 600;

function filenameOf(value: string | undefined): string {
  if (value === undefined || value.trim() === "")
    throw invalidQuery(
      '"filename" is required: the name the file is downloaded under, e.g. ?filename=cert.pdf.',
    );
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if ([...value].length > 255 || /[\u0000-\u001f\u007f/\\]/.test(value))
    throw invalidQuery(
      '"filename" must be 1-255 characters with no control characters, "/" or "\\".',
    );
  return value;
}

const MEDIA_TYPE = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(\s*;.*)?$/;
const contentTypeOf = (header: string | null): string =>
  header !== null && header.length <= 255 && MEDIA_TYPE.test(header.trim())
    ? header.trim()
    : "application/octet-stream";

export interface UploadCall {
  def: ResourceDefinition;
  company: Company;
  request: Request;
  ctx: RequestContext;
  params: Record<string, string>;
  set: { status?: number | string; headers: Record<string, unknown> };
}

/** 402 quota_exceeded when `adding` bytes would take the company past its plan's storage. */
function checkQuota(company: Company, used: number, adding: number): void {
  const limit = STORAGE_BYTES[company.plan];
  if (used + adding > limit) throw storageQuotaExceeded(company.plan, used, adding, limit);
}

/** Runs an upload for an admitted request: checks, streams, then writes the row (or previews it). */
export async function runUpload(deps: AttachmentDeps, call: UploadCall): Promise<unknown> {
  const { def, company, request, ctx } = call;
  // Refused before a byte is read or stored: another company's (or no) record, the query, the
  // size the client declares, the quota.
  const recordId = parseId(call.params.id, def.singular.toLowerCase());
  if (!(await recordExists(deps.db, def, company.id, recordId)))
    throw notFound(def.singular.toLowerCase(), recordId);
  const query = parseQuery(request.url, uploadParsers);
  const filename = filenameOf(query.filename);
  checkIdempotencyKey(ctx.idempotencyKey);
  const declared = request.headers.get("content-length");
  const length = declared !== null && /^\d+$/.test(declared) ? Number(declared) : undefined;
  if (length !== undefined && length > MAX_FILE_BYTES) throw fileTooLarge(MAX_FILE_BYTES);
  checkQuota(company, await storedBytes(deps.db, company.id), length ?? 0);
  const expected = expectedDigests(request.headers.get("content-digest"));
  const contentType = contentTypeOf(request.headers.get("content-type"));
  holdOpen(request, UPLOAD_SECONDS);
  const objectKey = `${company.id}/${randomUUID()}`;
  // The key is written down before a byte is stored: a crash from here on leaves it to the sweep.
  if (!ctx.dryRun) await markLoose(deps.db, objectKey);
  const upload = ctx.dryRun ? undefined : deps.attachments.begin(objectKey, contentType);
  let kept = false;
  try {
    const received = await receive(request.body, upload, expected);
    const file = { filename, contentType, objectKey, ...received };
    // The upload took its time; the write gets a database budget of its own.
    const answer = await withDatabaseBudget(
      () => writeAttachment(deps, call, recordId, file),
      REQUEST_BUDGET_MS,
      currentUsage(),
    );
    kept = !ctx.dryRun && !answer.replayed;
    sendWriteAnswer(deps, call, answer);
    return answer.body;
  } finally {
    if (upload && !kept)
      await withDatabaseBudget(
        () => discard(deps.db, deps.attachments, objectKey),
        REQUEST_BUDGET_MS,
        currentUsage(),
      );
  }
}

/** What an upload stores, or would (a dry-run: no id, no time). */
type Outcome = Omit<Attachment, "id" | "created_at"> & {
  id: number | null;
  created_at: string | null;
};

interface StoredFile extends Received {
  filename: string;
  contentType: string;
  objectKey: string;
}

async function writeAttachment(
  deps: AttachmentDeps,
  call: UploadCall,
  recordId: number,
  file: StoredFile,
) {
  const { request, ctx } = call;
  const path = new URL(request.url).pathname;
  const fingerprint =
    ctx.idempotencyKey === undefined
      ? undefined
      : fingerprintOf("POST", path, ctx.dryRun, {
          filename: file.filename,
          content_type: file.contentType,
          sha256: file.sha256,
          size: file.size,
        });
  return executeCallWrite(
    deps.store,
    call,
    fingerprint,
    (tx) => decideUpload(deps, tx, call, recordId, file),
    (record: Outcome) =>
      ctx.dryRun
        ? { status: 200, body: { data: { ...record, dry_run: true } } }
        : {
            status: 201,
            body: { data: { ...record, dry_run: false } },
            headers: { location: `/v1/attachments/${record.id}` },
          },
  );
}

/** In the write's transaction: the record live (locked), the quota with this file, the row and its event. */
async function decideUpload(
  deps: AttachmentDeps,
  tx: WriteTransaction,
  call: UploadCall,
  recordId: number,
  file: StoredFile,
) {
  const { def, company, ctx } = call;
  if (!(await recordExists(tx.db, def, company.id, recordId, { forUpdate: true })))
    throw notFound(def.singular.toLowerCase(), recordId);
  // Its key swept meanwhile (an upload that outlived LOOSE_AFTER_HOURS): its bytes are gone.
  if (!ctx.dryRun && !(await holdLoose(tx.db, file.objectKey)))
    throw new Error(`upload ${file.objectKey} was swept before its row was written`);
  // The company's row serialises its uploads: two at the quota's edge cannot both pass.
  await selectRows(tx.db, sql`SELECT id FROM companies WHERE id = ${company.id} FOR UPDATE`);
  checkQuota(company, await storedBytes(tx.db, company.id), file.size);
  const preview = {
    resource: def.name,
    record_id: recordId,
    filename: file.filename,
    content_type: file.contentType,
    size: file.size,
    sha256: file.sha256,
  };
  if (ctx.dryRun) return { outcome: { id: null, ...preview, created_at: null } as Outcome };
  const id = await deps.store.ids.take("attachments", 1);
  const createdAt = new Date();
  const attachment = toAttachment({
    id,
    company_id: company.id,
    ...preview,
    object_key: file.objectKey,
    created_at: createdAt,
  });
  const plan = new WritePlan();
  plan.statements.push({
    text:
      "INSERT INTO attachments (id, company_id, resource, record_id, filename, content_type, size, " +
      "sha256, object_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    values: [
      id,
      company.id,
      def.name,
      recordId,
      file.filename,
      file.contentType,
      file.size,
      file.sha256,
      file.objectKey,
      createdAt.toISOString().replace("T", " ").replace("Z", ""),
    ],
  });
  plan.statements.push(crossOutStatement(file.objectKey));
  plan.insertedTables.add("attachments");
  // The event tells the metadata only: never the bytes, the store's key or a link.
  plan.changes.push({ resource: "attachments", action: "created", record: attachment as never });
  return { outcome: attachment as Outcome, plan };
}
