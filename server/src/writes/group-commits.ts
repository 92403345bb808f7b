// Group commit for one company's writes in this process. Every write of a company updates the
// company's counter row (its events are numbered there, its live counts kept exact) and holds it
// until its COMMIT, so the company's writes commit one after another whatever the database could
// do in parallel; each handing the row on to the next costs the database more than the write
// itself (bench/README.md: our create's SQL alone reached 0.3 of the raw rate). So while one of
// a company's commits is in flight, the commits that come meanwhile wait, and then go as one text
// in one transaction, each write's statements in its order of arrival, then one counter statement
// and one INSERT of events for them all (writes/commit.ts): one hand-over of the row for all of them.
//
// Only a write that read nothing in its transaction joins a group (a create that needs no check, a
// keyed create, an update decided on a read outside it, writes/row-versions.ts): it decided without
// its transaction, so its statements mean the same in any transaction. (Batches do not come here:
// writes/execute-write.ts.) A write holding locks or reads commits as it is. A group whose text
// fails is rolled back whole, then each member commits alone, as it would have without the group:
// a member's own failure (a duplicate it must answer for, a row changed since it read it) reaches
// only that member, and the others' commits are not lost. So that one stale update does not fail a
// whole group, a waiting update of a row that the group before it wrote, or that an earlier write
// of its own group updates, runs again at once instead (it read the row before that write). The
// group runs on its first member's connection, within that member's request and its database budget.
import { CommitOutcomeUnknownError } from "../db/errors.ts";
import type { WriteTransaction } from "../db/write-transaction.ts";
import { groupCommitSize } from "../telemetry/metrics.ts";
import { commitStatements, type CommitPart } from "./commit.ts";
import { RowChangedError } from "./row-versions.ts";

/** Writes in one group at most: the rest wait for the next (a group that fails runs its members one by one). */
const MAX_GROUP = 64;

/**
 * How a waiting write learns its turn: committed in a group, to lead the next group, to commit
 * alone, to run again (a row it updates changed since it read it), or that its group's outcome
 * could not be established (then neither is it known for it).
 */
type Turn =
  | { committed: true }
  | { lead: Member[] }
  | { alone: true }
  | { changed: true }
  | { unknown: Error };

interface Member {
  tx: WriteTransaction;
  part: CommitPart;
  turn: (turn: Turn) => void;
}

/** Commits one write on its own transaction. */
const commitAlone = async (tx: WriteTransaction, part: CommitPart): Promise<void> =>
  void (await tx.commit(commitStatements([part]), part.probe));

const writesNothing = (part: CommitPart): boolean =>
  part.statements.length === 0 &&
  part.changes.length === 0 &&
  [...part.counts.values()].every((delta) => delta === 0);

export class GroupCommits {
  /** Per company with a commit in flight: the writes waiting for it. */
  readonly #waiting = new Map<number, Member[]>();

  /** Commits `part` on `tx`, with the company's other waiting writes when one is in flight. */
  async commit(tx: WriteTransaction, part: CommitPart): Promise<void> {
    if (tx.open || writesNothing(part)) return commitAlone(tx, part);
    const companyId = part.source.companyId;
    const waiting = this.#waiting.get(companyId);
    if (!waiting) {
      this.#waiting.set(companyId, []);
      return this.#lead(companyId, [{ tx, part, turn: () => {} }]);
    }
    const turn = await new Promise<Turn>((resolve) => waiting.push({ tx, part, turn: resolve }));
    if ("committed" in turn) return;
    if ("lead" in turn) return this.#lead(companyId, turn.lead);
    if ("unknown" in turn) throw turn.unknown;
    if ("changed" in turn) throw new RowChangedError();
    return commitAlone(tx, part);
  }

  /** Commits the group led by `members[0]`, then hands the company's next group to its first write. */
  async #lead(companyId: number, members: Member[]): Promise<void> {
    try {
      await commitGroup(members);
    } finally {
      const waiting = this.#waiting.get(companyId)!;
      const next = nextGroup(waiting, members);
      if (next.length === 0) this.#waiting.delete(companyId);
      else next[0]!.turn({ lead: next });
    }
  }
}

/**
 * Takes the next group out of `waiting` (in order of arrival, at most MAX_GROUP), and sends back to
 * run again the waiting updates of a row that `before` wrote or an earlier one of the group updates.
 */
function nextGroup(waiting: Member[], before: readonly Member[]): Member[] {
  const written = new Set(before.flatMap((member) => member.part.guarded));
  const taken = new Set<string>();
  const next: Member[] = [];
  const rest: Member[] = [];
  for (const member of waiting) {
    const rows = member.part.guarded;
    if (rows.some((row) => written.has(row))) member.turn({ changed: true });
    else if (next.length === MAX_GROUP) rest.push(member);
    else if (rows.some((row) => taken.has(row))) member.turn({ changed: true });
    else {
      for (const row of rows) taken.add(row);
      next.push(member);
    }
  }
  waiting.splice(0, waiting.length, ...rest);
  return next;
}

/** One text for the whole group; each member learns its outcome. */
async function commitGroup(members: Member[]): Promise<void> {
  const [leader, ...others] = members as [Member, ...Member[]];
  groupCommitSize.observe(members.length);
  if (others.length === 0) return commitAlone(leader.tx, leader.part);
  try {
    // One transaction: any member's rows tell whether all of them committed.
    const probe = members.find((member) => member.part.probe)?.part.probe;
    await leader.tx.commit(commitStatements(members.map((member) => member.part)), probe);
  } catch (error) {
    // A group whose outcome is unknown may have committed: no member may write again.
    const turn: Turn =
      error instanceof CommitOutcomeUnknownError ? { unknown: error } : { alone: true };
    for (const member of others) member.turn(turn);
    // An interrupted text (the leader's budget ran out) leaves its connection unfit for another.
    if (leader.tx.interrupted) throw error;
    await leader.tx.rollback();
    return commitAlone(leader.tx, leader.part);
  }
  for (const member of others) member.turn({ committed: true });
}
