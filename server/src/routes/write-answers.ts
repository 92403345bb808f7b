// How a write's outcome is answered over HTTP: its status, its headers (Location, ETag) and its body.
// runWrite (route-context.ts) hands the mapping to the write's runner, which stores the answer of a
// keyed write in the write's own commit: a replay sends those bytes again (docs/writes-and-retries.md).
import { etagOf } from "../http/etag.ts";
import type { StoredRecord } from "../resources/definition.ts";
import type { Shown } from "../resources/shown.ts";
import type { Answer } from "../writes/execute-write.ts";
import type { RecordOutcome } from "../writes/outcomes.ts";
import { recordDocument } from "../writes/preconditions.ts";

/** What of the request shapes a record write's answer besides its outcome. */
export interface RecordAnswering {
  /** The path of the collection: a created record's Location is this path and its id. */
  collection?: string;
  /** `Prefer: return=representation`: a created record is in the answer. */
  representation?: boolean;
  /** An upsert's answer says both `created` and `updated`: one schema serves its 201 and its 200. */
  upsert?: boolean;
  /**
   * What the writing token sees of the record: the answer's `record`, `changes` and ETag are of
   * that (docs/tokens.md, sensitive fields); all of it when absent.
   */
  shown?: Shown;
}

/** The tag a GET would now send, so a client can chain If-Match updates without reading again. */
const etagHeader = (record: StoredRecord, shown?: Shown) => ({
  etag: shown ? shown.etag(record) : etagOf(recordDocument(record)),
});

/**
 * A create is 201 with Location and ETag (its preview 200 without a record); an update, a delete and
 * a restore are 200, and an update or restore that ran answers the record's new ETag.
 */
export function recordAnswer(outcome: RecordOutcome, how: RecordAnswering = {}): Answer {
  const upsertCreated = how.upsert ? { updated: false } : {};
  const upsertUpdated = how.upsert ? { created: false } : {};
  switch (outcome.kind) {
    case "created": {
      const { record } = outcome;
      return {
        status: 201,
        body: {
          data: {
            id: record.id,
            created: true,
            ...upsertCreated,
            dry_run: false,
            ...(how.representation ? { record: how.shown?.record(record) ?? record } : {}),
          },
        },
        headers: {
          ...(how.collection === undefined ? {} : { location: `${how.collection}/${record.id}` }),
          ...etagHeader(record, how.shown),
        },
      };
    }
    case "create_previewed":
      return {
        status: 200,
        body: { data: { id: null, created: false, ...upsertCreated, dry_run: true } },
      };
    case "updated":
    case "unchanged":
    case "update_previewed":
      return withRecord(
        outcome.record,
        outcome.kind === "update_previewed",
        { ...upsertUpdated, updated: outcome.kind === "updated" },
        {
          changes:
            outcome.kind === "unchanged"
              ? {}
              : (how.shown?.changes(outcome.changes) ?? outcome.changes),
        },
        how.shown,
      );
    case "deleted":
    case "delete_previewed":
      return {
        status: 200,
        body: {
          data: {
            id: outcome.id,
            deleted: outcome.kind === "deleted",
            dry_run: outcome.kind === "delete_previewed",
            mode: "soft",
            would_delete: outcome.wouldDelete,
            would_keep: outcome.wouldKeep,
          },
        },
      };
    case "restored":
    case "restore_previewed":
      return withRecord(
        outcome.record,
        outcome.kind === "restore_previewed",
        { restored: outcome.kind === "restored" },
        { would_restore: outcome.wouldRestore },
        how.shown,
      );
  }
}

/**
 * 200 with the record after the write (or as it would be): `{id, ...before, dry_run, ...after, record}`,
 * in that order; a write that ran answers the record's new ETag.
 */
function withRecord(
  record: StoredRecord,
  dryRun: boolean,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  shown?: Shown,
): Answer {
  return {
    status: 200,
    headers: dryRun ? undefined : etagHeader(record, shown),
    body: {
      data: {
        id: record.id,
        ...before,
        dry_run: dryRun,
        ...after,
        record: shown?.record(record) ?? record,
      },
    },
  };
}

/**
 * 200 with what the write did, whatever it was: a batch's summary (each item says its own status),
 * a replay of webhook events.
 */
export const dataAnswer = <D>(data: D): Answer<{ data: D }> => ({ status: 200, body: { data } });

/**
 * A write of the company's configuration (a token, a webhook endpoint): `status` with what it made,
 * or in a dry-run, 200 `{dry_run: true}`.
 */
export function configAnswer<D>(
  status: number,
  dryRun: boolean,
): (data: D) => Answer<{ data: D | { dry_run: true } }> {
  return (data) =>
    dryRun ? { status: 200, body: { data: { dry_run: true } } } : { status, body: { data } };
}
