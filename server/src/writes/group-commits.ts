// Group commit for one company's writes in this process. Every write of a company updates the
// company's counter row (its events are numbered there, its live counts kept exact) and holds it
// until its COMMIT, so the company's writes commit one after another whatever the database could
// do in parallel; each handing the row on to the next costs the database more than the write
// itself (bench/README.md: our create's SQL alone reached 0.3 of the raw rate). So while one of
// a company's commits is in flight, the commits that come meanwhile wait, and then go as one text
// in one transaction, each write's statements in its order of arrival: one hand-over of the row
// for all of them.
//
// Only a write that read nothing in its transaction joins a group (a create that needs no check, a
// keyed create): it decided without the database, so its statements mean the same in any
// transaction. (Batches do not come here: writes/execute-write.ts.) A write holding locks or reads
// commits as it is. A group whose text fails is rolled back whole, then each member commits alone,
// as it would have without the group: a member's own failure (a duplicate it must answer for)
// reaches only that member, and the others' commits are not lost. The group runs on its first
// member's connection, within that member's request and its database budget.
import { CommitOutcomeUnknownError } from "../db/errors.ts";
import type { Statement, WriteTransaction } from "../db/write-transaction.ts";
import { groupCommitSize } from "../telemetry/metrics.ts";

/** Writes in one group at most: the rest wait for the next (a group that fails runs its members one by one). */
const MAX_GROUP = 64;

/**
 * How a waiting write learns its turn: committed in a group, to lead the next group, to commit
 * alone, or that its group's outcome could not be established (then neither is it known for it).
 */
type Turn = { committed: unknown[] } | { lead: Member[] } | { alone: true } | { unknown: Error };

interface Member {
  tx: WriteTransaction;
  statements: readonly Statement[];
  /** A read that finds the write's own rows once committed (db/write-transaction.ts). */
  probe: Statement | undefined;
  turn: (turn: Turn) => void;
}

export class GroupCommits {
  /** Per company with a commit in flight: the writes waiting for it. */
  readonly #waiting = new Map<number, Member[]>();

  /** Commits `statements` on `tx`, with the company's other waiting writes when one is in flight. */
  async commit(
    companyId: number,
    tx: WriteTransaction,
    statements: readonly Statement[],
    probe?: Statement,
  ): Promise<unknown[]> {
    if (tx.open || statements.length === 0) return tx.commit(statements, probe);
    const waiting = this.#waiting.get(companyId);
    if (!waiting) {
      this.#waiting.set(companyId, []);
      return this.#lead(companyId, [{ tx, statements, probe, turn: () => {} }]);
    }
    const turn = await new Promise<Turn>((resolve) =>
      waiting.push({ tx, statements, probe, turn: resolve }),
    );
    if ("committed" in turn) return turn.committed;
    if ("lead" in turn) return this.#lead(companyId, turn.lead);
    if ("unknown" in turn) throw turn.unknown;
    return tx.commit(statements, probe);
  }

  /** Commits the group led by `members[0]`, then hands the company's next group to its first write. */
  async #lead(companyId: number, members: Member[]): Promise<unknown[]> {
    try {
      return await commitGroup(members);
    } finally {
      const waiting = this.#waiting.get(companyId)!;
      if (waiting.length === 0) this.#waiting.delete(companyId);
      else {
        const next = waiting.splice(0, MAX_GROUP);
        next[0]!.turn({ lead: next });
      }
    }
  }
}

/** One text for the whole group; the leader's results are returned, the others' handed to them. */
async function commitGroup(members: Member[]): Promise<unknown[]> {
  const [leader, ...others] = members as [Member, ...Member[]];
  groupCommitSize.observe(members.length);
  if (others.length === 0) return leader.tx.commit(leader.statements, leader.probe);
  let results: unknown[];
  try {
    // One transaction: any member's rows tell whether all of them committed.
    const probe = members.find((member) => member.probe)?.probe;
    results = await leader.tx.commit(
      members.flatMap((member) => member.statements),
      probe,
    );
  } catch (error) {
    // A group whose outcome is unknown may have committed: no member may write again.
    const turn: Turn =
      error instanceof CommitOutcomeUnknownError ? { unknown: error } : { alone: true };
    for (const member of others) member.turn(turn);
    // An interrupted text (the leader's budget ran out) leaves its connection unfit for another.
    if (leader.tx.interrupted) throw error;
    await leader.tx.rollback();
    return leader.tx.commit(leader.statements, leader.probe);
  }
  let at = leader.statements.length;
  for (const member of others) {
    const end = at + member.statements.length;
    member.turn({ committed: results.slice(at, end) });
    at = end;
  }
  return results.slice(0, leader.statements.length);
}
