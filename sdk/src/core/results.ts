// The typed results of writes, and the record type a `fields` selection narrows to.

/** A record narrowed to the picked fields plus `id`; the whole record when no fields were picked. */
export type Picked<R, K extends keyof R> = [keyof R] extends [K] ? R : Pick<R, Extract<K | "id", keyof R>>;

/** What a real create returns (201). */
export interface Created {
  id: number;
  created: true;
  dry_run: false;
}

/** What a dry-run create returns (200): nothing was written and no id was consumed. */
export interface DryRunCreated {
  id: null;
  created: false;
  dry_run: true;
}

/** The create result; `dryRun: true` narrows it to DryRunCreated, no dryRun to Created. */
export type CreateResult<D extends boolean = boolean> = D extends true ? DryRunCreated : Created;

/** One changed field: its stored value and its new one. */
export interface FieldChange<V> {
  from: V;
  to: V;
}

/** What an update returns: the changed fields and the record after the change (or as it would be). */
export interface UpdateResult<R> {
  id: number;
  updated: boolean;
  dry_run: boolean;
  changes: { [K in keyof R]?: FieldChange<R[K]> };
  record: R;
}

/** A record a delete would remove or leave in place. */
export interface RecordRef {
  resource: string;
  id: number;
}

/** What a delete (or dry-run delete) returns. */
export interface DeleteResult {
  id: number;
  deleted: boolean;
  dry_run: boolean;
  mode: "soft";
  would_delete: RecordRef[];
  would_keep: RecordRef[];
}
