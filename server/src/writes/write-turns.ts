// Turns of the companies' batches in one process (docs/limits.md): the process runs one batch at a
// time, and when the turn frees while several companies wait, it goes to the next company in
// rotation (with more turns, to the waiting company running the fewest). A batch costs the server
// tens of milliseconds of work and the database a commit of hundreds of rows, where a read costs
// about one millisecond; batches on every connection a company has would otherwise fill the
// process's time and the write pool, and every other company's requests, reads included, would
// queue behind them (measured: a third company's GET p99 five to nine times its idle one with
// every batch running at once; about one and a half to two times with one at a time). A company's
// commits follow each other anyway (its counter row, writes/group-commits.ts), so taking turns
// costs its own import little. A batch waits for its turn after its body was read and before
// anything of it is decided: waiting costs only memory, within the request's database budget
// (503 database_unavailable once it runs out). A batch that holds its turn past OVERTIME_MS (a
// lock wait, a slow commit) waits on the database more than it works: it runs on without it, so
// one company's stuck batch never holds the others' back for long.
import { remainingBudgetMs } from "../db/deadline.ts";
import { unwatch, watch } from "../db/deadline-watch.ts";
import { DatabaseDeadlineError } from "../db/errors.ts";

/** Batches a process runs at once, every company's together. */
const TURNS = 1;
/** How long a batch holds its turn at most. */
const OVERTIME_MS = 1_000;

export class WriteTurns {
  readonly #running = new Map<number, number>();
  /** The companies with batches waiting, each with its waiters, in rotation order. */
  readonly #waiting = new Map<number, (() => void)[]>();
  #total = 0;

  constructor(
    private readonly turns = TURNS,
    private readonly overtimeMs = OVERTIME_MS,
  ) {}

  /** Waits for a turn of the company and answers how to give it back. */
  take(companyId: number): (() => void) | Promise<() => void> {
    if (this.#total < this.turns && this.#waiting.size === 0) return this.#start(companyId);
    return new Promise((resolve, reject) => {
      const queue = this.#waiting.get(companyId) ?? [];
      this.#waiting.set(companyId, queue);
      const start = (): void => {
        unwatch(expiry);
        resolve(this.#start(companyId));
      };
      const expiry = watch(Date.now() + remainingBudgetMs(), () => {
        queue.splice(queue.indexOf(start), 1);
        if (queue.length === 0) this.#waiting.delete(companyId);
        reject(new DatabaseDeadlineError("waiting for a batch's turn"));
      });
      queue.push(start);
    });
  }

  #start(companyId: number): () => void {
    this.#total += 1;
    this.#running.set(companyId, this.#runs(companyId) + 1);
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      unwatch(overtime);
      this.#total -= 1;
      const running = this.#runs(companyId) - 1;
      if (running === 0) this.#running.delete(companyId);
      else this.#running.set(companyId, running);
      this.#serve();
    };
    const overtime = watch(Date.now() + this.overtimeMs, end);
    return end;
  }

  /** Free turns go to the waiting company running the fewest, the first in rotation among equals. */
  #serve(): void {
    while (this.#total < this.turns && this.#waiting.size > 0) {
      let next: number | undefined;
      for (const companyId of this.#waiting.keys())
        if (next === undefined || this.#runs(companyId) < this.#runs(next)) next = companyId;
      const queue = this.#waiting.get(next!)!;
      const start = queue.shift()!;
      // To the back of the rotation, with what it still has waiting.
      this.#waiting.delete(next!);
      if (queue.length > 0) this.#waiting.set(next!, queue);
      start();
    }
  }

  #runs(companyId: number): number {
    return this.#running.get(companyId) ?? 0;
  }
}
