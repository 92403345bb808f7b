// The attachments table: what a caller sees of a row, and the reads of it. An attachment is seen
// only while its record is live: a soft-deleted record's attachments are 404 with it and come back
// with its restore, without a write of their own.
import { Type, type Static } from "@sinclair/typebox";
import { and, asc, eq, sql, sum } from "drizzle-orm";
import type { Executor } from "../db/client.ts";
import { attachments } from "../db/schema.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { RESOURCES } from "../resources/registry.ts";
import { timestampSchema } from "../resources/schemas.ts";
import { recordExists } from "../resources/store.ts";

/** The resources whose records take attachments: the six top-level ones. */
export const ATTACHABLE: readonly ResourceDefinition[] = RESOURCES;

export const AttachmentSchema = Type.Object(
  {
    id: Type.Integer(),
    resource: Type.String({ enum: ATTACHABLE.map((def) => def.name) }),
    record_id: Type.Integer(),
    filename: Type.String({ examples: ["certificate-of-insurance.pdf"] }),
    content_type: Type.String({ examples: ["application/pdf"] }),
    size: Type.Integer({ minimum: 0, description: "Bytes." }),
    sha256: Type.String({
      pattern: "^[0-9a-f]{64}$",
      description: "SHA-256 of the bytes, hex.",
      examples: ["e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    }),
    created_at: timestampSchema(),
  },
  { additionalProperties: false, title: "Attachment" },
);
export type Attachment = Static<typeof AttachmentSchema>;

/** A row as stored: what a caller sees, and where its bytes are. */
export type AttachmentRow = Attachment & { object_key: string };

type Selected = typeof attachments.$inferSelect;

export function toAttachment(row: Selected | AttachmentRow): Attachment {
  const created = row.created_at as unknown;
  return {
    id: Number(row.id),
    resource: row.resource,
    record_id: Number(row.record_id),
    filename: row.filename,
    content_type: row.content_type,
    size: Number(row.size),
    sha256: row.sha256,
    created_at: created instanceof Date ? created.toISOString() : String(created),
  };
}

const definitionOf = (resource: string): ResourceDefinition | undefined =>
  ATTACHABLE.find((def) => def.name === resource);

/**
 * The company's attachment `id` while its record is live, with its object key; undefined for
 * another company's, a missing one, or one whose record is deleted.
 */
export async function findAttachment(
  db: Executor,
  companyId: number | undefined,
  id: number,
): Promise<(AttachmentRow & { company_id: number; def: ResourceDefinition }) | undefined> {
  const [row] = await db
    .select()
    .from(attachments)
    .where(
      companyId === undefined
        ? eq(attachments.id, id)
        : and(eq(attachments.company_id, companyId), eq(attachments.id, id)),
    )
    .limit(1);
  const def = row && definitionOf(row.resource);
  if (!row || !def || !(await recordExists(db, def, row.company_id, row.record_id)))
    return undefined;
  return { ...toAttachment(row), object_key: row.object_key, company_id: row.company_id, def };
}

/** True when the company has (or had) attachment `id`: path ids of other companies stay 404. */
export async function attachmentRowExists(
  db: Executor,
  companyId: number,
  id: number,
): Promise<boolean> {
  const rows = await db
    .select({ id: attachments.id })
    .from(attachments)
    .where(and(eq(attachments.company_id, companyId), eq(attachments.id, id)))
    .limit(1);
  return rows.length > 0;
}

/** One page of a record's attachments, oldest first, and how many it has. */
export async function listAttachments(
  db: Executor,
  companyId: number,
  resource: string,
  recordId: number,
  page: { limit: number; offset: number },
): Promise<{ data: Attachment[]; total: number }> {
  const where = and(
    eq(attachments.company_id, companyId),
    eq(attachments.resource, resource),
    eq(attachments.record_id, recordId),
  );
  const [rows, counted] = await Promise.all([
    db
      .select()
      .from(attachments)
      .where(where)
      .orderBy(asc(attachments.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ total: sql<number>`COUNT(*)` }).from(attachments).where(where),
  ]);
  return { data: rows.map(toAttachment), total: Number(counted[0]?.total ?? 0) };
}

/** Bytes the company's attachments take in the store (those of deleted records too, until purged). */
export async function storedBytes(db: Executor, companyId: number): Promise<number> {
  const [row] = await db
    .select({ bytes: sum(attachments.size) })
    .from(attachments)
    .where(eq(attachments.company_id, companyId));
  return Number(row?.bytes ?? 0);
}
