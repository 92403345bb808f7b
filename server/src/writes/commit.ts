// What a write commits, and the text that commits one write or a group of a company's writes
// (writes/group-commits.ts): in lock order, each write's keyed outcome, item keys (a key raced by
// another batch fails the commit before anything heavy) and records, then one statement that moves
// the company's counters for all of them and one INSERT of all their events, numbered in the
// order of the writes. The counter row is the hottest lock and is held only for the rest of the
// round trip, and a group pays its two statements once, not once per write. And the read that
// finds a write's own rows once it committed, for a commit whose answer was lost
// (db/write-transaction.ts): its first event (the random part of its id is the write's own), or
// else an item key it binds, or else its keyed outcome.
import type { Statement } from "../db/write-transaction.ts";
import { insertEvents, type EventSource } from "../events/event-log.ts";
import { randomSuffixes } from "../events/event-ids.ts";
import { moveCounters } from "../db/company-counters.ts";
import { REPLAY_WINDOW_HOURS } from "./idempotency-store.ts";
import { bindItemKeys } from "./item-keys.ts";
import type { PlannedChange, WritePlan } from "./plan.ts";

/** One write's share of a commit text. */
export interface CommitPart {
  source: EventSource;
  /** Its keyed outcome, item keys and records, in lock order. */
  statements: Statement[];
  /** The changes its events tell, with the random part of each event's id. */
  changes: readonly PlannedChange[];
  suffixes: readonly string[];
  /** Live records added (or removed) per counted resource. */
  counts: ReadonlyMap<string, number>;
  /** The read that finds its rows once committed. */
  probe: Statement | undefined;
  /** The rows it updates only as it read them (writes/row-versions.ts). */
  guarded: readonly string[];
}

/** A keyed write's stored outcome and the read that finds it. */
export interface KeyedOutcome {
  statement: Statement;
  probe: Statement;
}

export function commitPart(
  source: EventSource,
  plan: WritePlan | undefined,
  outcome?: KeyedOutcome,
): CommitPart {
  const statements = outcome ? [outcome.statement] : [];
  if (!plan)
    return {
      source,
      statements,
      changes: [],
      suffixes: [],
      counts: new Map(),
      probe: outcome?.probe,
      guarded: [],
    };
  statements.push(
    ...bindItemKeys(source.companyId, plan.bindings, plan.expiredKeys),
    ...plan.statements,
  );
  const suffixes = randomSuffixes(plan.changes.length);
  const first = plan.changes[0];
  const binding = plan.bindings[0];
  const probe: Statement | undefined = first
    ? {
        text: "SELECT 1 FROM events WHERE company_id = ? AND resource = ? AND record_id = ? AND token = ?",
        values: [source.companyId, first.resource, first.record.id, suffixes[0]],
      }
    : binding
      ? {
          text:
            `SELECT 1 FROM batch_item_keys WHERE company_id = ? AND item_key = ? AND ` +
            `fingerprint = ? AND created_at > NOW(3) - INTERVAL ${REPLAY_WINDOW_HOURS} HOUR`,
          values: [source.companyId, binding.key, binding.fingerprint],
        }
      : outcome?.probe;
  return {
    source,
    statements,
    changes: plan.changes,
    suffixes,
    counts: plan.counts,
    probe,
    guarded: plan.guarded,
  };
}

/** The statements that commit these writes (all of one company) in one transaction, in their order. */
export function commitStatements(parts: readonly CommitPart[]): Statement[] {
  const [first] = parts;
  if (!first) return [];
  const statements = parts.flatMap((part) => part.statements);
  let events = 0;
  const counts = new Map<string, number>();
  for (const part of parts) {
    events += part.changes.length;
    for (const [name, delta] of part.counts) counts.set(name, (counts.get(name) ?? 0) + delta);
  }
  const counters = moveCounters(first.source.companyId, events, counts);
  if (counters) statements.push(counters);
  if (events > 0) statements.push(insertEvents(parts.filter((part) => part.changes.length > 0)));
  return statements;
}
