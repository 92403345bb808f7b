// How long the current request may still wait on the database. Every request runs inside a
// budget (docs/errors.md: an answer within 10 s, 503 when the database does not give one); every
// pool acquisition and statement of that request draws on it. Work outside a request (meters,
// housekeeping) gets a budget per statement.
import { AsyncLocalStorage } from "node:async_hooks";
import { envMilliseconds } from "../base/config.ts";

/** A request's whole database budget; the rest of the 10 s is left for the answer itself. */
export const REQUEST_BUDGET_MS = envMilliseconds("ERP_DB_BUDGET_MS", 9_000);

/** What a request's statements report to it: their time summed (its log line's db_ms). */
export interface DatabaseUsage {
  ms: number;
  /** The request's trace, the parent of its statements' spans. */
  readonly trace?: { readonly traceId: string; readonly spanId: string };
}

const scope = new AsyncLocalStorage<{ deadline: number; usage: DatabaseUsage | undefined }>();

/** Runs `fn` (a whole request) with a database deadline `budgetMs` from now. */
export function withDatabaseBudget<T>(
  fn: () => T,
  budgetMs: number = REQUEST_BUDGET_MS,
  usage?: DatabaseUsage,
): T {
  return scope.run({ deadline: Date.now() + budgetMs, usage }, fn);
}

/** The usage of the request the current statement runs for, if it keeps one. */
export const currentUsage = (): DatabaseUsage | undefined => scope.getStore()?.usage;

/** Milliseconds the current request may still wait; outside a request, a fresh budget. */
export function remainingBudgetMs(): number {
  const current = scope.getStore();
  return current ? current.deadline - Date.now() : REQUEST_BUDGET_MS;
}
