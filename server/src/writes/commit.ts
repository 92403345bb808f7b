// The statements a write commits with, in lock order: its item keys first (a key raced by another
// batch fails the commit before anything heavy), its records, then the company's counters and its
// events, whose counter row is the hottest lock and is held only for the rest of the round trip.
import type { Statement } from "../db/write-transaction.ts";
import { insertEvents, type EventSource } from "../events/event-log.ts";
import { moveCounters } from "../db/company-counters.ts";
import { bindItemKeys } from "./item-keys.ts";
import type { WritePlan } from "./plan.ts";

export function commitStatements(plan: WritePlan, source: EventSource): Statement[] {
  const statements = [
    ...bindItemKeys(source.companyId, plan.bindings, plan.expiredKeys),
    ...plan.statements,
  ];
  const counters = moveCounters(source.companyId, plan.changes.length, plan.counts);
  if (counters) statements.push(counters);
  if (plan.changes.length > 0) statements.push(insertEvents(source, plan.changes));
  return statements;
}
