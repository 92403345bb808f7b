// What a write of one record decided, as a value: routes/write-answers.ts turns each into its HTTP
// answer. A dry-run decides exactly as the real write would, and its outcome says it was previewed.
import type { FieldChange } from "../events/changes.ts";
import type { RecordRef } from "../refusals/problem-schema.ts";
import type { StoredRecord } from "../resources/definition.ts";

export type RecordOutcome =
  | { kind: "created"; record: StoredRecord }
  /** A dry-run create: the record it would be has no id yet. */
  | { kind: "create_previewed" }
  | { kind: "updated"; record: StoredRecord; changes: Record<string, FieldChange> }
  /** An update that changed no field: nothing written, the record as it is. */
  | { kind: "unchanged"; record: StoredRecord }
  | { kind: "update_previewed"; record: StoredRecord; changes: Record<string, FieldChange> }
  | {
      kind: "deleted" | "delete_previewed";
      id: number;
      wouldDelete: RecordRef[];
      wouldKeep: RecordRef[];
    }
  | { kind: "restored" | "restore_previewed"; record: StoredRecord; wouldRestore: RecordRef[] };

/** The outcome of a create: the record made, or that it was only previewed. */
export const createOutcome = (record: StoredRecord, dryRun: boolean): RecordOutcome =>
  dryRun ? { kind: "create_previewed" } : { kind: "created", record };

/** The outcome of an update: what it changed, or that it was only previewed. */
export function updateOutcome(
  record: StoredRecord,
  changes: Record<string, FieldChange>,
  dryRun: boolean,
): RecordOutcome {
  if (dryRun) return { kind: "update_previewed", record, changes };
  return Object.keys(changes).length > 0
    ? { kind: "updated", record, changes }
    : { kind: "unchanged", record };
}
