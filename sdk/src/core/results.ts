// The typed results of writes, and the record type a `fields` selection narrows to: the served
// outcome schemas (generated), made generic over the record where a resource's type matters.
import type {
  BatchOutcome,
  Change,
  DeleteOutcome,
  ProjectCreated,
  ProjectRestoreOutcome,
  ProjectUpdateOutcome,
  ProjectUpsertOutcome,
} from "../generated/types.ts";

/** A record narrowed to the picked fields plus `id`; the whole record when no fields were picked. */
export type Picked<R, K extends keyof R> = [keyof R] extends [K]
  ? R
  : Pick<R, Extract<K | "id", keyof R>>;

export type { RecordRef } from "../generated/types.ts";

// The served document gives a create's 201 and its dry-run's 200 one schema (ProjectCreated, with
// `id: number | null`); the SDK knows which one it asked for and narrows each.
// Every <Resource>Created has the same frame around its record; Project's stands for them all.
/** What a real create returns: the new id, and the record itself when the create asked for it. */
export type Created<R = unknown> = Omit<ProjectCreated, "id" | "created" | "dry_run" | "record"> & {
  id: number;
  created: true;
  dry_run: false;
  record?: R;
};

/** What a dry-run create returns: nothing was written and no id was consumed. */
export type DryRunCreated = Omit<ProjectCreated, "id" | "created" | "dry_run" | "record"> & {
  id: null;
  created: false;
  dry_run: true;
};

/** The create result; `dryRun: true` narrows it to DryRunCreated, no dryRun to Created. */
export type CreateResult<D extends boolean = boolean, R = unknown> = D extends true
  ? DryRunCreated
  : Created<R>;

/** One changed field: its stored value and its new one (the served Change, typed per field). */
export type FieldChange<V> = Change & { from: V; to: V };

/** What an update returns: the changed fields and the record after the change (or as it would be). */
// Every <Resource>UpdateOutcome has the same frame around its record; Project's stands for them all.
export type UpdateResult<R> = Omit<ProjectUpdateOutcome, "changes" | "record"> & {
  changes: { [K in keyof R]?: FieldChange<R[K]> };
  record: R;
};

/**
 * What an upsert returns: created (`created: true`, the record with `Prefer: return=representation`),
 * updated (`changes` and `record`), or previewed in a dry-run (`id: null` when it would create).
 */
export type UpsertResult<R> = Omit<ProjectUpsertOutcome, "changes" | "record"> & {
  changes?: { [K in keyof R]?: FieldChange<R[K]> };
  record?: R;
};

/** What a restore returns: the record back (or as it would be) and what came back with it. */
// Every <Resource>RestoreOutcome has the same frame around its record; Project's stands for them all.
export type RestoreResult<R> = Omit<ProjectRestoreOutcome, "record"> & { record: R };

/** What a delete (or dry-run delete) returns. */
export type DeleteResult = DeleteOutcome;

/** What a batch returns: counts and every item's result, in order. */
export type BatchResult = BatchOutcome;
