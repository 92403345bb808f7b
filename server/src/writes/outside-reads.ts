// Where a write's look-ups run (writes/lookups.ts): its transaction, or the read pool outside it,
// for a write that needs no lock. Outside, the reads of one record by id (a PATCH's, the commonest)
// of one company and resource that come while one is in flight wait for it and then go as one
// SELECT of all their ids, as group commits do for writes (writes/group-commits.ts): each
// statement costs the server a round trip's system calls whatever it reads, and a PATCH's read
// was half of its statements. A read that waited starts after its write came, so it sees every
// write committed before that.
import type { GuardedPool } from "../db/pool.ts";
import type { Statement } from "../db/write-transaction.ts";

type Row = Record<string, unknown>;

export interface Reads {
  run(statements: readonly Statement[]): Promise<unknown[]>;
  /**
   * Outside a transaction only: the row with this id that `select(ids)` finds, read together with
   * the other reads of the same `kind` (company and resource) that come meanwhile.
   */
  byId?(kind: string, id: number, select: (ids: number[]) => Statement): Promise<Row | undefined>;
}

/** How a waiting read learns its turn: its row (or the read's error), or to lead the next read. */
type Turn = { row: Row | undefined } | { error: unknown } | { lead: Waiting[] };

interface Waiting {
  id: number;
  select: (ids: number[]) => Statement;
  turn: (turn: Turn) => void;
}

/** Reads on the read pool, each statement on its own (autocommitted, no lock), all at once. */
export function outsideReads(pool: GuardedPool): Reads {
  const query = async ({ text, values }: Statement): Promise<unknown> =>
    (await pool.query(text, values ?? []))[0];
  /** Per kind with a read in flight: the reads waiting for it. */
  const waitingFor = new Map<string, Waiting[]>();

  /**
   * Reads the rows of `group` (its leader first, whose row is returned), within the leader's
   * request and its database budget, then hands the next group to its first read.
   */
  async function lead(kind: string, group: Waiting[]): Promise<Row | undefined> {
    const [leader, ...others] = group as [Waiting, ...Waiting[]];
    try {
      const ids = [...new Set(group.map((read) => read.id))];
      const rows = (await query(leader.select(ids))) as Row[];
      const byId = new Map(rows.map((row) => [Number(row.id), row]));
      for (const read of others) read.turn({ row: byId.get(read.id) });
      return byId.get(leader.id);
    } catch (error) {
      for (const read of others) read.turn({ error });
      throw error;
    } finally {
      const next = waitingFor.get(kind)!;
      if (next.length === 0) waitingFor.delete(kind);
      else {
        waitingFor.set(kind, []);
        next[0]!.turn({ lead: next });
      }
    }
  }

  return {
    run: (statements) => Promise.all(statements.map(query)),
    async byId(kind, id, select) {
      const waiting = waitingFor.get(kind);
      if (!waiting) {
        waitingFor.set(kind, []);
        return lead(kind, [{ id, select, turn: () => {} }]);
      }
      const turn = await new Promise<Turn>((resolve) =>
        waiting.push({ id, select, turn: resolve }),
      );
      if ("row" in turn) return turn.row;
      if ("error" in turn) throw turn.error;
      return lead(kind, turn.lead);
    },
  };
}
