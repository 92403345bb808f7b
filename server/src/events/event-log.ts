// The outbox: each change of a committed write becomes an event in the write's own transaction.
// Taking the company's next sequence numbers is the last thing a write does before committing,
// so the row lock on the sequence (on a cluster, the certified conflict on it) is held only for
// that moment, and numbers follow commit order with no gaps: a reader that sees number N sees
// every number before it.
import type { Transaction } from "../db/client.ts";
import { executePrepared, executeShaped } from "../db/statements.ts";
import type { RequestContext } from "../http/request-context.ts";
import { definitionNamed } from "../resources/registry.ts";
import type { ChangeLog, RecordChange } from "../writes/changes.ts";
import { eventId } from "./event-ids.ts";

/** project.created, rental.updated, equipment.deleted: the resource's singular in snake case. */
export function eventType(resource: string, action: RecordChange["action"]): string {
  const noun = definitionNamed(resource).singular.replace(/(?<=[a-z0-9])([A-Z])/g, "_$1").toLowerCase();
  return `${noun}.${action}`;
}

/** The INSERT of `rows` events. */
function insertEventsText(rows: number): string {
  const row = "(?, ?, ?, ?, ?, ?, ?, ?, ?, NOW(3))";
  return `INSERT INTO events (company_id, seq, id, type, resource, record_id, data, request_id, idempotency_key, created_at)
    VALUES ${Array.from({ length: rows }, () => row).join(", ")}`;
}

/** A single write's event: a fixed text, so it is a prepared statement. */
const INSERT_ONE_EVENT = insertEventsText(1);

/** Takes `count` sequence numbers for the company; returns the last one. */
async function takeSequence(tx: Transaction, companyId: number, count: number): Promise<number> {
  // LAST_INSERT_ID(expr) makes the driver report the new value as insertId, in one statement.
  const result = await executePrepared(tx, `
    INSERT INTO event_sequences (company_id, last_seq) VALUES (?, LAST_INSERT_ID(?))
    ON DUPLICATE KEY UPDATE last_seq = LAST_INSERT_ID(last_seq + ?)`, [companyId, count, count]);
  return Number(result.insertId);
}

export const appendEvents: ChangeLog = async (tx: Transaction, ctx: RequestContext, changes: readonly RecordChange[]) => {
  const companyId = ctx.companyId;
  if (companyId === undefined) throw new Error("events need an authenticated request");
  const last = await takeSequence(tx, companyId, changes.length);
  const first = last - changes.length + 1;
  const values = changes.flatMap((change, index) => {
    const seq = first + index;
    const data = JSON.stringify({ record: change.record, ...(change.changes ? { changes: change.changes } : {}) });
    return [companyId, seq, eventId(seq), eventType(change.resource, change.action), change.resource, change.record.id, data, ctx.requestId, ctx.idempotencyKey ?? null];
  });
  // A batch's row count varies with the request, so its text is built per batch and not prepared.
  if (changes.length === 1) await executePrepared(tx, INSERT_ONE_EVENT, values);
  else await executeShaped(tx, insertEventsText(changes.length), values);
};
