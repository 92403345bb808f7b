// The outbox: each change of a committed write becomes an event in the write's own transaction.
// Taking the company's next sequence numbers is the last thing a write does before committing,
// so the row lock on the sequence (on a cluster, the certified conflict on it) is held only for
// that moment, and numbers follow commit order with no gaps: a reader that sees number N sees
// every number before it.
import { sql } from "drizzle-orm";
import type { ResultSetHeader } from "mysql2";
import type { Transaction } from "../db/client.ts";
import type { RequestContext } from "../http/request-context.ts";
import { definitionNamed } from "../resources/registry.ts";
import type { ChangeLog, RecordChange } from "../writes/changes.ts";
import { eventId } from "./event-ids.ts";

/** project.created, rental.updated, equipment.deleted: the resource's singular in snake case. */
export function eventType(resource: string, action: RecordChange["action"]): string {
  const noun = definitionNamed(resource).singular.replace(/(?<=[a-z0-9])([A-Z])/g, "_$1").toLowerCase();
  return `${noun}.${action}`;
}

/** Takes `count` sequence numbers for the company; returns the last one. */
async function takeSequence(tx: Transaction, companyId: number, count: number): Promise<number> {
  // LAST_INSERT_ID(expr) makes the driver report the new value as insertId, in one statement.
  const [result] = await tx.execute(sql`
    INSERT INTO event_sequences (company_id, last_seq) VALUES (${companyId}, LAST_INSERT_ID(${count}))
    ON DUPLICATE KEY UPDATE last_seq = LAST_INSERT_ID(last_seq + ${count})`) as unknown as [ResultSetHeader];
  return Number(result.insertId);
}

export const appendEvents: ChangeLog = async (tx: Transaction, ctx: RequestContext, changes: readonly RecordChange[]) => {
  const companyId = ctx.companyId;
  if (companyId === undefined) throw new Error("events need an authenticated request");
  const last = await takeSequence(tx, companyId, changes.length);
  const first = last - changes.length + 1;
  const rows = changes.map((change, index) => {
    const seq = first + index;
    const data = JSON.stringify({ record: change.record, ...(change.changes ? { changes: change.changes } : {}) });
    return sql`(${companyId}, ${seq}, ${eventId(seq)}, ${eventType(change.resource, change.action)}, ${change.resource},
      ${change.record.id}, ${data}, ${ctx.requestId}, ${ctx.idempotencyKey ?? null}, NOW(3))`;
  });
  await tx.execute(sql`INSERT INTO events (company_id, seq, id, type, resource, record_id, data, request_id, idempotency_key, created_at)
    VALUES ${sql.join(rows, sql`, `)}`);
};
