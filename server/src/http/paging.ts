// Paging: the limit, offset, after_id and total parameters lists take, and the page they select.
import { invalidQuery } from "../refusals/catalogue.ts";
import { described, flagParam, integerParam } from "./query.ts";

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

export const limitParam = described(
  integerParam(1),
  `Page size: default ${DEFAULT_LIMIT}; values above ${MAX_LIMIT} are capped (meta.limit shows the effective one).`,
  { default: DEFAULT_LIMIT },
);
export const offsetParam = described(
  integerParam(0),
  "Start position in the result set (records are ordered by id). Reading meta.total and raising offset by limit until it reaches total visits every record once; each page costs more the deeper it starts, so for a whole collection prefer after_id. Not with after_id.",
  { default: 0 },
);
export const afterIdParam = described(
  integerParam(0),
  "Seek paging: only records whose id is greater than this, in id order (start with 0). meta.next_after_id is the after_id of the next page while more records follow, absent on the last page. A page costs the same however deep it is. Not with offset.",
);
export const totalParam = described(
  flagParam,
  "`false` leaves meta.total out and skips counting the matching records (a list without filters answers its total in constant time either way).",
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

/** Where a page of a list starts: at a position (offset paging, the SPEC's rule) or after an id (seek paging). */
export type PageStart = { offset: number } | { afterId: number };

/** The page a list answers: its effective limit and where it starts; after_id and offset together are refused. */
export function listWindow(query: { limit?: unknown; offset?: unknown; after_id?: unknown }): {
  limit: number;
  start: PageStart;
} {
  const { limit, offset } = pageWindow(query);
  if (query.after_id === undefined) return { limit, start: { offset } };
  if (query.offset !== undefined)
    throw invalidQuery(
      "Give after_id or offset, not both: after_id pages by id (meta.next_after_id), offset by position.",
    );
  return { limit, start: { afterId: query.after_id as number } };
}
