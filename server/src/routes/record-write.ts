// How the write routes of a resource's records run: as runWrite (route-context.ts), for a token
// that may see only some of their fields (docs/tokens.md). What it sees is read first, then handed
// to the write, which may refuse a body setting a field it does not see and answers with those left out.
import type { TokenInfo } from "../auth/tokens.ts";
import type { WriteTransaction } from "../db/write-transaction.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import type { Shown } from "../resources/shown.ts";
import { readView } from "../resources/visibility.ts";
import type { Answer, Decided, WriteAttempt } from "../writes/execute-write.ts";
import { type RouteDeps, runWrite, type WriteCall, type WriteOptions } from "./route-context.ts";

/** What a write of records hands runWrite: its operation, its answer and its options. */
export interface RecordWrite<O, B> {
  operation: (tx: WriteTransaction, body: unknown, attempt: WriteAttempt) => Promise<Decided<O>>;
  respond: (outcome: O) => Answer<B>;
  options?: WriteOptions;
}

/** Runs the write `write` makes of what the token of `call` sees of `def`'s records. */
export async function runRecordWrite<O, B>(
  deps: RouteDeps,
  def: ResourceDefinition,
  call: WriteCall & { token: Pick<TokenInfo, "scopes"> },
  write: (shown: Shown) => RecordWrite<O, B>,
): Promise<B> {
  const shown = await readView(call.token.scopes).of(def, call.company.id, deps.db);
  const { operation, respond, options } = write(shown);
  return runWrite(deps, call, operation, respond, options);
}

/**
 * The options of a write whose body sets fields: a field the token may not write is refused, and
 * its key's answer is replayed only to a caller who sees the same fields.
 */
export const writingShown = (shown: Shown): WriteOptions => ({
  allowed: (body) => shown.refuseWritten(body),
  hidden: shown.hidden,
});
