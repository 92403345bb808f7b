// What the routes of a company's configuration (custom fields, tokens, webhook endpoints) share:
// the member a path names, what every write of theirs documents alike, and how a write route runs.
import type { TSchema } from "@sinclair/typebox";
import type { DocumentDecoration } from "elysia";
import type { AdmittedApp } from "../auth/admission.ts";
import type { Company } from "../auth/company.ts";
import type { TokenInfo } from "../auth/tokens.ts";
import type { Executor } from "../db/client.ts";
import type { WriteTransaction } from "../db/write-transaction.ts";
import type { OperationDoc } from "../http/operation-docs.ts";
import type { RequestContext } from "../http/request-context.ts";
import type { RefusalCode } from "../refusals/catalogue.ts";
import type { Answer, Decided } from "../writes/execute-write.ts";
import {
  parseId,
  type RouteDeps,
  runWrite,
  WRITE_REFUSALS,
  writeParsers,
} from "./route-context.ts";
import { configAnswer } from "./write-answers.ts";

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

/** How a create whose answer shows a secret once (a token, a webhook endpoint) documents its answers. */
export const CREATED_WITH_SECRET: OperationDoc["responses"] = {
  201: { description: "Created, with its secret.", headers: ["IdempotentReplayed"] },
  200: { description: "Dry-run: it would be created." },
};

/** The id a path's `:id` names; anything else names no `what` (404). */
export const configMemberId =
  (what: string) =>
  (params: unknown): number =>
    parseId((params as Record<string, string>).id, what);

/** What a configuration write is given of its admitted request. */
export interface ConfigCall {
  company: Company;
  token: TokenInfo;
  ctx: RequestContext;
  params: Record<string, string>;
}

/** How a configuration write runs and answers: runWrite's operation and answer, given the call. */
export interface ConfigWrite<O> {
  write: (tx: WriteTransaction, body: unknown, call: ConfigCall) => Promise<Decided<O>>;
  respond: (outcome: O, call: ConfigCall) => Answer;
}

/**
 * A write route of the configuration: its write runs as every write (runWrite: one transaction,
 * Idempotency-Key, dry-run), and `detail` and `response` document it.
 */
export interface ConfigWriteRoute<O> extends ConfigWrite<O> {
  method: "POST" | "PATCH" | "DELETE";
  path: string;
  takesBody?: false;
  detail: DocumentDecoration;
  response: Record<number, TSchema>;
}

export function configWriteRoute<O>(
  app: AdmittedApp,
  deps: RouteDeps,
  route: ConfigWriteRoute<O>,
): void {
  const { method, path, write, respond, takesBody, ...hook } = route;
  app.route(
    method,
    path,
    ({ company, token, request, ctx, set, params }) =>
      runWrite(
        deps,
        { company, request, ctx, set },
        (tx, body) => write(tx, body, { company, token, ctx, params }),
        (outcome) => respond(outcome, { company, token, ctx, params }),
        takesBody === false ? { takesBody } : undefined,
      ),
    hook,
  );
}

/**
 * A write whose outcome is what it answers: `{data}` with `status`, or in a dry-run (rolled back)
 * 200 `{data: {dry_run: true}}`.
 */
export const answeringData = <D>(
  status: number,
  work: (db: Executor, body: unknown, call: ConfigCall) => Promise<D>,
): ConfigWrite<D> => ({
  write: async (tx, body, call) => ({ outcome: await work(tx.db, body, call) }),
  respond: (outcome, { ctx }) => configAnswer<D>(status, ctx.dryRun)(outcome),
});
