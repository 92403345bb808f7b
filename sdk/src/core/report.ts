// What a collection's report (`aggregate()`) takes and answers, typed by the collection's group keys
// and metrics (its generated `<Record>GroupKey` and `<Record>Metric`).

/** A group key's value: an enum value, an id, a flag, a bucket (`2026-03`), a currency; null for none. */
export type GroupValue = string | number | boolean | null;

/**
 * A report's query: `groupBy` (up to 3 keys, in the order groups are keyed and sorted), `metrics`
 * (default `count`) and the list's filters `F`.
 */
export type ReportQuery<F, G extends string, M extends string> = Omit<
  F,
  "sort" | "include_deleted"
> & {
  groupBy?: readonly G[];
  metrics?: readonly M[];
};

/**
 * One group: its key by `groupBy` field (and `currency`, when money is summed in a collection with
 * currencies), then each metric: `count` a number, money exact decimal text (`"125000.00"`), a
 * date's min or max its text; null where the group has no value.
 */
export type ReportRow<G extends string, M extends string> = {
  group: { readonly [K in G]: GroupValue } & { readonly currency?: string };
} & { readonly [K in M]: K extends "count" ? number : string | null };

/** A report: `{ data: groups, meta: { groups } }`. */
export interface Report<G extends string, M extends string> {
  data: ReportRow<G, M>[];
  meta: { groups: number };
}
