// What a committed write changed, record by record: each write operation reports its changes and
// the executor hands them to the change log in the write's own transaction. Dry-runs, replays
// and writes that change nothing report none.
import type { Transaction } from "../db/client.ts";
import type { RequestContext } from "../http/request-context.ts";
import type { StoredRecord } from "../resources/definition.ts";

export type ChangeAction = "created" | "updated" | "deleted";

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

/** Persists the changes of a write inside its transaction (the outbox of the events feed). */
export type ChangeLog = (tx: Transaction, ctx: RequestContext, changes: readonly RecordChange[]) => Promise<void>;
