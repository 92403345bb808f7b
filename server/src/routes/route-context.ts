// What the routes of one resource share: their paths, dependencies, the scope of a request
// (its company, and for a sub-collection its live parent) and how a write runs and answers.
import type { Admission } from "../auth/admission.ts";
import type { Company } from "../auth/company.ts";
import type { Database, Executor } from "../db/client.ts";
import { notFound } from "../http/problem.ts";
import { described, flagParam, parseQuery } from "../http/query.ts";
import type { RequestContext } from "../http/request-context.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { definitionOf } from "../resources/registry.ts";
import { recordExists, type Scope } from "../resources/store.ts";
import type { ChangeLog } from "../writes/changes.ts";
import { fingerprintOf } from "../writes/fingerprint.ts";
import { executeWrite, type WriteOperation, type WriteResult } from "../writes/idempotency.ts";

export interface RouteDeps {
  db: Database;
  admit: Admission;
  changeLog: ChangeLog;
}

export interface ResourcePaths {
  collection: string;
  member: string;
  /** The path parameter naming one member: `id`, or the sub-resource's own (`rental_id`). */
  memberParam: string;
}

export function pathsOf(def: ResourceDefinition): ResourcePaths {
  const collection = def.parent ? `/v1/${definitionOf(def.parent.table).name}/:id/${def.name}` : `/v1/${def.name}`;
  const memberParam = def.parent?.memberParam ?? "id";
  return { collection, member: `${collection}/:${memberParam}`, memberParam };
}

/** Path ids are positive integers; anything else names no record. */
export function parseId(value: string | undefined, what: string): number {
  if (value === undefined || !/^[1-9][0-9]{0,15}$/.test(value)) throw notFound(what, value ?? "");
  return Number(value);
}

/** The company, and for a sub-collection its parent, which must be a live record of the company. */
export async function scopeOf(db: Executor, def: ResourceDefinition, company: Company, params: Record<string, string>, lock = false): Promise<Scope> {
  if (!def.parent) return { companyId: company.id };
  const parent = definitionOf(def.parent.table);
  const parentId = parseId(params.id, parent.singular.toLowerCase());
  if (!(await recordExists(db, parent, company.id, parentId, { forUpdate: lock }))) throw notFound(parent.singular.toLowerCase(), parentId);
  return { companyId: company.id, parentId };
}

export const writeParsers = { dry_run: described(flagParam, "`1` makes the request a dry-run, like the X-Dry-Run header.") };

/** Runs a write operation for a request (under its Idempotency-Key, if any) and answers with its result. */
export async function runWrite(
  deps: RouteDeps, request: Request, ctx: RequestContext, body: unknown, set: { status?: number | string; headers: Record<string, unknown> }, operation: WriteOperation,
): Promise<unknown> {
  const url = new URL(request.url);
  parseQuery(url, writeParsers);
  if (ctx.idempotencyKey !== undefined) ctx.fingerprint = fingerprintOf(request.method, url.pathname, ctx.dryRun, body);
  const result: WriteResult = await executeWrite(deps.db, ctx, deps.changeLog, operation);
  set.status = result.status;
  Object.assign(set.headers, result.headers ?? {});
  return result.body;
}
