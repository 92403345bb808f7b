// The outbox: each change of a committed write becomes an event in the write's own transaction.
// The write's last statements move the company's event counter (db/company-counters.ts), which
// leaves the last new event number in LAST_INSERT_ID(), and insert the events numbered from it.
// The counter row stays locked from that moment to the COMMIT sent in the same round trip, so
// numbers follow commit order with no gaps: a reader that sees number N sees every number before.
import { sqlLiteral } from "../db/sql.ts";
import { rowsStatement, type Statement } from "../db/write-transaction.ts";
import { definitionNamed } from "../resources/registry.ts";
import type { RecordChange } from "./changes.ts";

const types = new Map<string, string>();

/**
 * What has events but is no resource, with the noun of its event types: a company's custom field
 * definitions (`custom_field.created`; docs/custom-fields.md) and a record's attachments
 * (`attachment.created`, `attachment.deleted`; docs/attachments.md).
 */
export const OTHER_EVENT_SOURCES = {
  "custom-fields": "custom_field",
  attachments: "attachment",
} as const;

/** project.created, rental.updated, equipment.deleted: the resource's singular in snake case. */
export function eventType(resource: string, action: RecordChange["action"]): string {
  const key = `${resource}.${action}`;
  let type = types.get(key);
  if (type === undefined) {
    const noun = Object.hasOwn(OTHER_EVENT_SOURCES, resource)
      ? OTHER_EVENT_SOURCES[resource as keyof typeof OTHER_EVENT_SOURCES]
      : definitionNamed(resource)
          .singular.replace(/(?<=[a-z0-9])([A-Z])/g, "_$1")
          .toLowerCase();
    type = `${noun}.${action}`;
    types.set(key, type);
  }
  return type;
}

/** The type and resource of an event: what a long-poll's filter is matched against. */
export interface EventKind {
  type: string;
  resource: string;
}

/** The kinds of event that changes become, each once. */
export function eventKinds(changes: readonly RecordChange[]): EventKind[] {
  const kinds = new Map<string, EventKind>();
  for (const { resource, action } of changes) {
    const type = eventType(resource, action);
    if (!kinds.has(type)) kinds.set(type, { type, resource });
  }
  return [...kinds.values()];
}

/** Who wrote the changes: the request, and the key it (or each batch item) carried. */
export interface EventSource {
  companyId: number;
  requestId: string;
  idempotencyKey: string | undefined;
}

/** Changes of one write, to become its events, and the random part of each event's id. */
export interface WriteEvents {
  source: EventSource;
  changes: readonly (RecordChange & { key?: string })[];
  suffixes: readonly string[];
}

/**
 * The INSERT of one event per change of these writes (of one company), numbered in their order up to
 * LAST_INSERT_ID() (the counter statement just before it), each with the random part of its id (the
 * table derives the id from both).
 */
export function insertEvents(writes: readonly WriteEvents[]): Statement {
  const total = writes.reduce((sum, write) => sum + write.changes.length, 0);
  let index = 0;
  // The type and resource of a kind of change, as literals: the same for most rows.
  const kinds = new Map<string, string>();
  const rows: string[] = [];
  for (const { source, changes, suffixes } of writes) {
    const company = `(${sqlLiteral(source.companyId)}, LAST_INSERT_ID() - `;
    const request = `, ${sqlLiteral(source.requestId)}, NOW(3))`;
    const key = sqlLiteral(source.idempotencyKey ?? null);
    for (const [own, change] of changes.entries()) {
      const kindKey = `${change.resource}.${change.action}`;
      let kind = kinds.get(kindKey);
      if (kind === undefined) {
        kind = `${sqlLiteral(eventType(change.resource, change.action))}, ${sqlLiteral(change.resource)}`;
        kinds.set(kindKey, kind);
      }
      const data = JSON.stringify(
        change.changes
          ? { record: change.record, changes: change.changes }
          : { record: change.record },
      );
      // Each row's number stays LAST_INSERT_ID() less its place, whichever statement carries it.
      rows.push(
        `${company}${total - 1 - index++}, '${suffixes[own]}', ${kind}, ` +
          `${sqlLiteral(change.record.id)}, ${sqlLiteral(data)}, ` +
          `${change.key === undefined ? key : sqlLiteral(change.key)}${request}`,
      );
    }
  }
  return rowsStatement(
    "INSERT INTO events (company_id, seq, token, type, resource, record_id, data, " +
      "idempotency_key, request_id, created_at) VALUES ",
    rows,
  );
}
