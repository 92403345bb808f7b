// Offset paging: the limit and offset parameters every list takes, and the page they select.
import { described, integerParam } from "./query.ts";

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

export const limitParam = described(integerParam(1), `Page size: default ${DEFAULT_LIMIT}; values above ${MAX_LIMIT} are capped (meta.limit shows the effective one).`, { default: DEFAULT_LIMIT });
export const offsetParam = described(integerParam(0), "Start position in the result set (records are ordered by id).", { default: 0 });

/** The page a list answers: limit defaults and is capped, offset defaults to 0. */
export function pageWindow(query: { limit?: unknown; offset?: unknown }): { limit: number; offset: number } {
  return {
    limit: Math.min((query.limit as number | undefined) ?? DEFAULT_LIMIT, MAX_LIMIT),
    offset: (query.offset as number | undefined) ?? 0,
  };
}
