// Paging: the limit, offset, after_id and total parameters lists take, and the page they select.
import { createHash } from "node:crypto";
import { invalidQuery } from "../refusals/catalogue.ts";
import { described, flagParam, integerParam, textParam } from "./query.ts";

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

export const limitParam = described(
  integerParam(1),
  `Page size: default ${DEFAULT_LIMIT}; values above ${MAX_LIMIT} are capped (meta.limit shows the effective one).`,
  { default: DEFAULT_LIMIT },
);
export const offsetParam = described(
  integerParam(0),
  "Start position in the result set (records are ordered by id). Reading meta.total and raising " +
    "offset by limit until it reaches total visits every record once; each page costs more " +
    "the deeper it starts, so for a whole collection prefer after_id. Not with after_id.",
  { default: 0 },
);
export const afterIdParam = described(
  integerParam(0),
  "Seek paging: only records whose id is greater than this, in id order (start with 0). " +
    "meta.next_after_id is the after_id of the next page while more records follow, absent " +
    "on the last page. A page costs the same however deep it is. Not with offset.",
);
export const afterParam = described(
  textParam,
  "Seek paging of a sorted list: the meta.next_cursor of the page before (any sorted page " +
    "carries it while more records follow). The cursor holds the position in the order and " +
    "is bound to the list's sort and filters: with other ones it is a 400. A page costs the " +
    "same however deep it is. Not with offset or after_id.",
);
export const totalParam = described(
  flagParam,
  "`false` leaves meta.total out and skips counting the matching records (a list without " +
    "filters answers its total in constant time either way).",
);

/** The page a list answers: limit defaults and is capped, offset defaults to 0. */
export function pageWindow(query: { limit?: unknown; offset?: unknown }): {
  limit: number;
  offset: number;
} {
  return {
    limit: Math.min((query.limit as number | undefined) ?? DEFAULT_LIMIT, MAX_LIMIT),
    offset: (query.offset as number | undefined) ?? 0,
  };
}

/** A place in a sorted list: the values of its sort keys and the id that breaks their ties. */
export interface SortPosition {
  values: unknown[];
  id: number;
}

/**
 * Where a page of a list starts: at a position (offset paging, the SPEC's rule), after an id (seek
 * paging in id order) or after a cursor's place (seek paging in any order).
 */
export type PageStart = { offset: number } | { afterId: number } | { after: SortPosition };

/**
 * What binds a cursor to its list: the company and the query's sort and filters (everything but
 * paging, fields and expand).
 */
export function listFingerprint(query: Record<string, unknown>, companyId: number): string {
  const paging = new Set(["limit", "offset", "after", "after_id", "total", "fields", "expand"]);
  const bound = Object.keys(query)
    .filter((name) => !paging.has(name))
    .sort()
    .map((name) => [name, query[name]]);
  return createHash("sha256")
    .update(JSON.stringify([companyId, bound]))
    .digest("base64url")
    .slice(0, 12);
}

/** How a list reads its cursors: what binds them, its number of sort keys, what their values may be. */
export interface CursorCheck {
  fingerprint: string;
  keys: number;
  /** True when the values fit the sort's fields (a cursor is opaque, not trusted: it reaches SQL). */
  fits(values: readonly unknown[]): boolean;
}

/** The opaque `after` of the page that follows `position` in the list `fingerprint` names. */
export function encodeCursor(fingerprint: string, position: SortPosition): string {
  return Buffer.from(JSON.stringify([fingerprint, position.id, ...position.values])).toString(
    "base64url",
  );
}

function decodeCursor(cursor: string, { fingerprint, keys, fits }: CursorCheck): SortPosition {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    decoded = undefined;
  }
  if (
    !Array.isArray(decoded) ||
    typeof decoded[0] !== "string" ||
    !Number.isSafeInteger(decoded[1]) ||
    decoded.length !== keys + 2
  )
    throw invalidQuery(`"after" must be a meta.next_cursor this list answered, not "${cursor}".`);
  if (decoded[0] !== fingerprint)
    throw invalidQuery(
      '"after" is a cursor of a list with another sort or other filters (or of another ' +
        "company): page with the sort and filters that gave it, or start again without " +
        '"after".',
    );
  const values = decoded.slice(2);
  if ((decoded[1] as number) < 0 || !fits(values))
    throw invalidQuery(
      `"after" holds values that no page of this list ends on: give a meta.next_cursor this ` +
        `list answered, or start again without "after".`,
    );
  return { id: decoded[1] as number, values };
}

/**
 * The page a list answers: its effective limit and where it starts; only one of offset, after_id
 * and after. A cursor (`after`) is read against the list's fingerprint, its number of sort keys and
 * the kinds of their fields.
 */
export function listWindow(
  query: { limit?: unknown; offset?: unknown; after_id?: unknown; after?: unknown; sort?: unknown },
  cursor?: CursorCheck,
): { limit: number; start: PageStart } {
  const { limit, offset } = pageWindow(query);
  if (query.after !== undefined) {
    if (query.offset !== undefined || query.after_id !== undefined)
      throw invalidQuery(
        "Give one of after, after_id and offset: after pages by a cursor (meta.next_cursor), " +
          "after_id by id, offset by position.",
      );
    return {
      limit,
      start: { after: decodeCursor(query.after as string, cursor!) },
    };
  }
  if (query.after_id !== undefined && query.sort !== undefined)
    throw invalidQuery(
      "after_id pages a list in id order: page a sorted list with after (its meta.next_cursor) or offset.",
    );
  if (query.after_id === undefined) return { limit, start: { offset } };
  if (query.offset !== undefined)
    throw invalidQuery(
      "Give after_id or offset, not both: after_id pages by id (meta.next_after_id), offset by position.",
    );
  return { limit, start: { afterId: query.after_id as number } };
}
