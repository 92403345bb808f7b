// What the routes of a company's configuration (custom fields, tokens, webhook endpoints) share:
// the member a path names, and what every write of theirs documents alike.
import type { OperationDoc } from "../http/operation-docs.ts";
import type { RefusalCode } from "../refusals/catalogue.ts";
import { parseId, WRITE_REFUSALS, writeParsers } from "./route-context.ts";

type WriteHeader = "IdempotencyKey" | "XDryRun" | "IfMatch";
type WriteDoc = Pick<OperationDoc, "tags" | "query" | "headers" | "refusals"> & { scope: string };

/**
 * What every write of one kind of configuration documents alike: the scope it needs, its tags,
 * its query (dry_run), the headers it reads, and its refusals: every write's, then its own.
 */
export const configWriteDoc =
  (scope: string, tags: string[], headers: WriteHeader[]) =>
  (refusals: readonly RefusalCode[]): WriteDoc => ({
    scope,
    tags,
    query: writeParsers,
    headers,
    refusals: [...WRITE_REFUSALS, ...refusals],
  });

/** The id a path's `:id` names; anything else names no `what` (404). */
export const configMemberId =
  (what: string) =>
  (params: unknown): number =>
    parseId((params as Record<string, string>).id, what);
