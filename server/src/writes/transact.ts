// Runs a write in one transaction, again when the database rolled it back whole (a deadlock, a
// lock wait, a cluster certification conflict), for as long as the request's budget lasts.
import type { Database, Transaction } from "../db/client.ts";
import { remainingBudgetMs } from "../db/deadline.ts";
import { databaseErrorKind } from "../db/errors.ts";

/** Below this much budget another attempt would not finish; the error reaches the caller (503). */
const MIN_ATTEMPT_MS = 500;

export async function transact<T>(db: Database, work: (tx: Transaction) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(work);
    } catch (error) {
      const kind = databaseErrorKind(error);
      if ((kind !== "retryable" && kind !== "lock_wait") || remainingBudgetMs() < MIN_ATTEMPT_MS) throw error;
      // Contenders that collided would collide again at once: spread them out a little.
      await Bun.sleep(Math.min(200, 5 * 2 ** attempt) * Math.random());
    }
  }
}
