// A company's counters (the company_counters table, see db/schema.ts): its last event number and
// each resource's live records. A write moves them all in one statement, the last before its events and COMMIT,
// so the rows are locked only for the end of the transaction. Quotas and list totals read them.
import type { Executor } from "./client.ts";
import { executePrepared } from "./sql.ts";
import type { Statement } from "./write-transaction.ts";

/** The counter of the company's last event number. */
export const EVENTS_COUNTER = "events";
/** The counter of the last event number retention deleted. */
export const PURGED_COUNTER = "events_purged";

/**
 * Adds `events` to the event counter (LAST_INSERT_ID() is then the last new event number, for the
 * events INSERT that follows) and each delta to its resource's live count. A counter that does
 * not exist yet starts at the delta (a company's counters are created with it, at zero).
 */
export function moveCounters(
  companyId: number,
  events: number,
  deltas: ReadonlyMap<string, number>,
): Statement | undefined {
  const rows: [string, string, number][] = [];
  if (events > 0) rows.push(["(?, ?, LAST_INSERT_ID(?))", EVENTS_COUNTER, events]);
  for (const [name, delta] of deltas) if (delta !== 0) rows.push(["(?, ?, ?)", name, delta]);
  if (rows.length === 0) return undefined;
  return {
    text: `INSERT INTO company_counters (company_id, name, value)
      VALUES ${rows.map(([placeholders]) => placeholders).join(", ")}
      ON DUPLICATE KEY UPDATE value = IF(name = '${EVENTS_COUNTER}',
        LAST_INSERT_ID(value + VALUES(value)), value + VALUES(value))`,
    values: rows.flatMap(([, name, value]) => [companyId, name, value]),
  };
}

/** A counted resource: the name of its counter (the resource's) and of its table. */
export interface Counted {
  name: string;
  table: string;
}

/** The counter of a resource's live records; locked for a quota a real write may exhaust. */
export function liveCountRead(companyId: number, counted: Counted, lock: boolean): Statement {
  return {
    text: `SELECT value FROM company_counters WHERE company_id = ? AND name = ?${lock ? " FOR UPDATE" : ""}`,
    values: [companyId, counted.name],
  };
}

/** Creates a missing live-record counter from a count of the records (a company from before counters). */
export function startLiveCount(companyId: number, counted: Counted): Statement {
  return {
    text: `INSERT INTO company_counters (company_id, name, value) SELECT ?, ?, COUNT(*) FROM \`${counted.table}\`
      WHERE company_id = ? AND deleted_at IS NULL
      ON DUPLICATE KEY UPDATE value = value`,
    values: [companyId, counted.name, companyId],
  };
}

/** Zeroed counters of a new company: its events and every counted resource. */
export function newCompanyCounters(companyId: number, counted: readonly string[]): Statement {
  const names = [EVENTS_COUNTER, ...counted];
  return {
    text:
      `INSERT INTO company_counters (company_id, name, value) VALUES ` +
      `${names.map(() => "(?, ?, 0)").join(", ")} ON DUPLICATE KEY UPDATE value = value`,
    values: names.flatMap((name) => [companyId, name]),
  };
}

/** A resource's live records, from its counter (created from a count of the records when missing). */
export async function liveRecords(
  db: Executor,
  counted: Counted,
  companyId: number,
): Promise<number> {
  const read = liveCountRead(companyId, counted, false);
  for (let attempt = 0; attempt < 2; attempt++) {
    const rows = await executePrepared<{ value: number }[]>(db, read.text, read.values ?? []);
    if (rows[0]) return Number(rows[0].value);
    const start = startLiveCount(companyId, counted);
    await executePrepared(db, start.text, start.values ?? []);
  }
  throw new Error(`the ${counted.name} counter of company ${companyId} could not be started`);
}

/** A counter's value (0 when it does not exist). */
export async function readCounter(db: Executor, companyId: number, name: string): Promise<number> {
  const rows = await executePrepared<{ value: number }[]>(
    db,
    "SELECT value FROM company_counters WHERE company_id = ? AND name = ?",
    [companyId, name],
  );
  return Number(rows[0]?.value ?? 0);
}
