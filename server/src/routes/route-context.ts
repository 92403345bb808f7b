// What the routes of one resource share: their paths, dependencies, the scope of a request
// (its company, and for a sub-collection its live parent) and how a write runs and answers.
import type { Admission } from "../auth/admission.ts";
import type { Company } from "../auth/company.ts";
import type { Database, Executor } from "../db/client.ts";
import type { WriteTransaction } from "../db/write-transaction.ts";
import type { RecordChange } from "../events/changes.ts";
import { eventKinds } from "../events/event-log.ts";
import type { FeedWaiters } from "../events/feed-waiters.ts";
import { notFound, type RefusalCode } from "../refusals/catalogue.ts";
import { readJsonBody } from "../http/body.ts";
import { described, flagParam, parseQuery } from "../http/query.ts";
import type { RequestContext } from "../http/request-context.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { recordExists, type Scope } from "../resources/store.ts";
import {
  type Answer,
  type Decided,
  executeWrite,
  type WriteAnswer,
  type WriteAttempt,
  type WriteOperation,
  type WriteStore,
} from "../writes/execute-write.ts";
import { fingerprintOf } from "../writes/fingerprint.ts";
import { checkIdempotencyKey } from "../writes/idempotency.ts";

export interface RouteDeps {
  db: Database;
  store: WriteStore;
  admission: Admission;
  /** Long-polls of the change feed; a committed write releases its company's at once. */
  waiters: FeedWaiters;
}

export interface ResourcePaths {
  collection: string;
  member: string;
  /** The path parameter naming one member: `id`, or the sub-resource's own (`rental_id`). */
  memberParam: string;
}

export function pathsOf(def: ResourceDefinition): ResourcePaths {
  const collection = def.parent
    ? `/v1/${def.parent.resource.name}/:id/${def.name}`
    : `/v1/${def.name}`;
  const memberParam = def.parent?.memberParam ?? "id";
  return { collection, member: `${collection}/:${memberParam}`, memberParam };
}

/** Path ids are positive integers; anything else names no record. */
export function parseId(value: string | undefined, what: string): number {
  if (value === undefined || !/^[1-9][0-9]{0,15}$/.test(value)) throw notFound(what, value ?? "");
  return Number(value);
}

/** The id of the member a path names (`:id`, or a sub-resource's own parameter). */
export const memberIdOf = (def: ResourceDefinition, params: Record<string, string>): number =>
  parseId(params[def.parent?.memberParam ?? "id"], def.singular.toLowerCase());

/**
 * The company, and for a sub-collection its parent, which must be a live record of the company: at
 * once (no promise, nothing read) for a top-level resource.
 */
export function scopeOf(
  db: Executor,
  def: ResourceDefinition,
  company: Company,
  params: Record<string, string>,
  lock = false,
): Scope | Promise<Scope> {
  if (!def.parent) return { companyId: company.id };
  return parentScope(db, def.parent.resource, company, params, lock);
}

/**
 * What a write to the member a path names carries: the record's id, its scope (a sub-resource's
 * live parent, locked until the write commits), the request's dry-run and If-Match.
 */
export async function memberWrite(
  db: Executor,
  def: ResourceDefinition,
  company: Company,
  params: Record<string, string>,
  ctx: RequestContext,
) {
  const id = memberIdOf(def, params);
  const scope = await scopeOf(db, def, company, params, true);
  return { def, company, dryRun: ctx.dryRun, id, scope, ifMatch: ctx.ifMatch };
}

async function parentScope(
  db: Executor,
  parent: ResourceDefinition,
  company: Company,
  params: Record<string, string>,
  lock: boolean,
): Promise<Scope> {
  const parentId = parseId(params.id, parent.singular.toLowerCase());
  if (!(await recordExists(db, parent, company.id, parentId, { forUpdate: lock })))
    throw notFound(parent.singular.toLowerCase(), parentId);
  return { companyId: company.id, parentId };
}

/** What every write may be refused for besides admission: its query, its Idempotency-Key. */
export const WRITE_REFUSALS: readonly RefusalCode[] = [
  "invalid_query",
  "invalid_idempotency_key",
  "idempotency_key_reuse",
  "idempotency_in_progress",
  "commit_outcome_unknown",
];
/** What a write that takes a body may be refused for because of it. */
export const BODY_REFUSALS: readonly RefusalCode[] = [
  "malformed_json",
  "payload_too_large",
  "request_timeout",
  "unsupported_media_type",
  "validation_failed",
];

export const writeParsers = {
  dry_run: described(
    flagParam,
    "`true` (or `1`) makes the request a dry-run, like the X-Dry-Run header.",
  ),
};

/**
 * What a write route hands runWrite of its request: the admitted company, the request and its
 * context, and its answer's status and headers.
 */
export interface WriteCall {
  company: Company;
  request: Request;
  ctx: RequestContext;
  set: { status?: number | string; headers: Record<string, unknown> };
}

/** What a write route may ask of runWrite besides its operation and answer. */
export interface WriteOptions {
  takesBody?: boolean;
  allowed?: (body: unknown) => void;
  batch?: boolean;
  /** The fields the caller does not see: its key's answer is replayed only to one who sees the same. */
  hidden?: readonly string[];
}

/**
 * Runs a write for an admitted request and answers with its result: reads the body (admission came
 * first), checks the Idempotency-Key and the query, then runs `operation` under the key, if any, and
 * answers its outcome as `respond` maps it (write-answers.ts).
 * A route whose write `takesBody: false` still has its body read and refused when malformed, but
 * the key's fingerprint leaves it out. `allowed` refuses a body the caller may not send at all,
 * before a stored answer is replayed: a replay answers only a caller that could have made the
 * write (a token create's, one holding the scopes it grants). A `batch` waits for its company's
 * turn (writes/write-turns.ts). A replay goes back to the company (admission.refund).
 */
export async function runWrite<O, B>(
  deps: RouteDeps,
  call: WriteCall,
  operation: (tx: WriteTransaction, body: unknown, attempt: WriteAttempt) => Promise<Decided<O>>,
  respond: (outcome: O) => Answer<B>,
  options: WriteOptions = {},
): Promise<B> {
  const { request, ctx, set } = call;
  const read = (await readJsonBody(request)) ?? null;
  const body = options.takesBody === false ? undefined : read;
  checkIdempotencyKey(ctx.idempotencyKey);
  // Refuses unknown parameters and a malformed dry_run; the dry-run itself is the context's.
  parseQuery(request.url, writeParsers);
  options.allowed?.(body);
  const fingerprint =
    ctx.idempotencyKey === undefined
      ? undefined
      : fingerprintOf(
          request.method,
          new URL(request.url).pathname,
          ctx.dryRun,
          body,
          options.hidden,
        );
  const answer = await executeCallWrite(
    deps.store,
    call,
    fingerprint,
    (tx, attempt) => operation(tx, body, attempt),
    respond,
    options.batch,
  );
  sendWriteAnswer(deps, call, answer);
  const data = (answer.body as { data?: { record?: unknown } } | undefined)?.data;
  if (ctx.representation && typeof data?.record === "object")
    set.headers["preference-applied"] = "return=representation";
  return answer.body;
}

/** A write's answer, and what it changed: when it committed, its events. */
export type CallAnswer<B> = WriteAnswer<B> & { changes: readonly RecordChange[] };

/**
 * Runs `operation` as the write of an admitted request, under its Idempotency-Key when it has one
 * (`fingerprint`: what the key is bound to), and in its company's turn when it is a `batch`.
 */
export async function executeCallWrite<O, B>(
  store: WriteStore,
  call: Pick<WriteCall, "company" | "ctx">,
  fingerprint: string | undefined,
  operation: WriteOperation<O>,
  respond: (outcome: O) => Answer<B>,
  batch?: boolean,
): Promise<CallAnswer<B>> {
  const { company, ctx } = call;
  // What the attempt that ran last changed.
  let changes: readonly RecordChange[] = [];
  const answer = await executeWrite(
    store,
    {
      companyId: company.id,
      requestId: ctx.requestId,
      dryRun: ctx.dryRun,
      idempotencyKey: ctx.idempotencyKey,
      fingerprint,
      batch,
    },
    async (tx, attempt) => {
      const decided = await operation(tx, attempt);
      changes = decided.plan?.changes ?? [];
      return decided;
    },
    respond,
  );
  return { ...answer, changes };
}

/**
 * Puts a write's status and headers on the answer. A replay goes back to the company
 * (admission.refund); a commit releases at once the followers of the company's feed on this
 * process that want its events, rather than at their next round.
 */
export function sendWriteAnswer(
  deps: RouteDeps,
  call: WriteCall,
  answer: CallAnswer<unknown>,
): void {
  const { company, request, ctx, set } = call;
  if (answer.replayed) deps.admission.refund(request, company, ctx);
  if (answer.events > 0) deps.waiters.committed(company.id, eventKinds(answer.changes));
  set.status = answer.status;
  Object.assign(set.headers, answer.headers);
}
