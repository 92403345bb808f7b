// The statements a write commits with, in lock order: its item keys first (a key raced by another
// batch fails the commit before anything heavy), its records, then the company's counters and its
// events, whose counter row is the hottest lock and is held only for the rest of the round trip.
// And the read that finds the write's own rows once it committed, for a commit whose answer was
// lost (db/write-transaction.ts): its first event (the random part of its id is the write's own),
// or else an item key it binds.
import type { Statement } from "../db/write-transaction.ts";
import { insertEvents, type EventSource } from "../events/event-log.ts";
import { randomSuffixes } from "../events/event-ids.ts";
import { moveCounters } from "../db/company-counters.ts";
import { REPLAY_WINDOW_HOURS } from "./idempotency-store.ts";
import { bindItemKeys } from "./item-keys.ts";
import type { WritePlan } from "./plan.ts";

export function commitStatements(
  plan: WritePlan,
  source: EventSource,
): { statements: Statement[]; probe: Statement | undefined } {
  const statements = [
    ...bindItemKeys(source.companyId, plan.bindings, plan.expiredKeys),
    ...plan.statements,
  ];
  const counters = moveCounters(source.companyId, plan.changes.length, plan.counts);
  if (counters) statements.push(counters);
  const first = plan.changes[0];
  const binding = plan.bindings[0];
  if (first) {
    const suffixes = randomSuffixes(plan.changes.length);
    statements.push(insertEvents(source, plan.changes, suffixes));
    return {
      statements,
      probe: {
        text: "SELECT 1 FROM events WHERE company_id = ? AND resource = ? AND record_id = ? AND token = ?",
        values: [source.companyId, first.resource, first.record.id, suffixes[0]],
      },
    };
  }
  return {
    statements,
    probe: binding && {
      text:
        `SELECT 1 FROM batch_item_keys WHERE company_id = ? AND item_key = ? AND ` +
        `fingerprint = ? AND created_at > NOW(3) - INTERVAL ${REPLAY_WINDOW_HOURS} HOUR`,
      values: [source.companyId, binding.key, binding.fingerprint],
    },
  };
}
