// What a committed write changed, record by record: each write operation reports its changes and
// they become its events, committed with it (writes/commit.ts). Dry-runs, replays and writes that
// change nothing report none.
import type { StoredRecord } from "../resources/definition.ts";

export type ChangeAction = "created" | "updated" | "deleted" | "restored";

export interface FieldChange {
  from: unknown;
  to: unknown;
}

export interface RecordChange {
  /** The resource's name (its path segment): `projects`, `rentals`, … */
  resource: string;
  action: ChangeAction;
  /** The record after the change; for a delete, as it was when deleted. */
  record: StoredRecord;
  /** For an update, each changed field. */
  changes?: Record<string, FieldChange>;
}
