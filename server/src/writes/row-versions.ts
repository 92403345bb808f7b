// A record's updated_at is its version. Every update sets it later than the value it read
// (nextVersion: the millisecond after it at least, whatever the clocks of the servers say), so a
// row whose updated_at is still the one read is the row read. An update decided on a read taken
// outside its transaction (no lock held while it decides, so it can join its company's group
// commit, writes/group-commits.ts) writes only on that condition: its statement sets updated_at
// through a guard that the database refuses to evaluate when the row changed or was deleted since.
// The refusal stops the text before its COMMIT, and the write runs again against the row as it is
// now (writes/execute-write.ts), deciding anew: a 412, a 409 transition, or the update.
import { getTableName } from "drizzle-orm";
import type { ResourceDefinition } from "../resources/definition.ts";

/**
 * The error number the guard's refusal carries: arithmetic out of range (`id + ~0` overflows
 * BIGINT UNSIGNED for any id), which MySQL and MariaDB raise whatever their sql_mode, and which no
 * other statement of a write can meet.
 */
const OUT_OF_RANGE = 1690;

/** A write found, before sending it, that a record it decided on was changed since it was read. */
export class RowChangedError extends Error {
  constructor() {
    super("a record changed since the write read it");
    this.name = "RowChangedError";
  }
}

/** True when the write was refused because a record it read changed since: run it again. */
export function rowChanged(error: unknown): boolean {
  for (
    let current = error, depth = 0;
    typeof current === "object" && current !== null && depth < 10;
    depth++
  ) {
    if (current instanceof RowChangedError) return true;
    if ((current as { errno?: unknown }).errno === OUT_OF_RANGE) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** The updated_at an update of a record read with `stored` sets: now, or just after `stored`. */
export function nextVersion(stored: unknown, now: Date): Date {
  const read = typeof stored === "string" ? Date.parse(stored) : Number.NaN;
  return Number.isNaN(read) || read < now.getTime() ? now : new Date(read + 1);
}

/**
 * The assignment of updated_at that writes `set` (a placeholder) only to the row as read: its
 * updated_at still `read` (a placeholder), not deleted since. Placed first in its SET list, so it
 * sees the row before any other assignment of the statement.
 */
export function guardedVersion(column: string, softDeleted: boolean): string {
  const live = softDeleted ? " AND deleted_at IS NULL" : "";
  return `${column} = IF(${column} = ?${live}, ?, id + ~0)`;
}

/** The row a guarded update writes, as group commits compare them (two in one group would fail it). */
export const rowKey = (def: ResourceDefinition, id: number): string =>
  `${getTableName(def.table)}:${id}`;
