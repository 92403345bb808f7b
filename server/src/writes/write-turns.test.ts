// Batches' turns: one at a time, companies served in rotation, a stuck batch let go of, and a wait
// bounded by the request's database budget.
import { expect, test } from "bun:test";
import { withDatabaseBudget } from "../db/deadline.ts";
import { DatabaseDeadlineError } from "../db/errors.ts";
import { WriteTurns } from "./write-turns.ts";

/** Takes a turn and records when it came, in `order`. */
async function taken(turns: WriteTurns, companyId: number, order: number[]): Promise<() => void> {
  const taking = turns.take(companyId);
  const release = taking instanceof Promise ? await taking : taking;
  order.push(companyId);
  return release;
}

test("one batch at a time: a second waits until the first gives its turn back", async () => {
  const turns = new WriteTurns(1, 60_000);
  const order: number[] = [];
  const first = await taken(turns, 1, order);
  const second = taken(turns, 2, order);
  await Bun.sleep(20);
  expect(order).toEqual([1]);
  first();
  (await second)();
  expect(order).toEqual([1, 2]);
});

test("while several companies wait, the turn goes round them: a flood of one never runs twice in a row", async () => {
  const turns = new WriteTurns(1, 60_000);
  const order: number[] = [];
  /** A batch that runs a moment once its turn comes. */
  const batch = async (companyId: number): Promise<void> => {
    const release = await taken(turns, companyId, order);
    await Bun.sleep(2);
    release();
  };
  const first = await taken(turns, 1, order);
  // Company 1 floods (five more waiting), then companies 2 and 3 come with two each.
  const waiting = [1, 1, 1, 1, 1, 2, 2, 3, 3].map(batch);
  first();
  await Promise.all(waiting);
  expect(order).toEqual([1, 1, 2, 3, 1, 2, 3, 1, 1, 1]);
});

test("with two turns, a freed one goes to the waiting company running the fewest", async () => {
  const turns = new WriteTurns(2, 60_000);
  const order: number[] = [];
  // Company 1 alone takes both turns, then queues more; company 2 comes after.
  const a = await taken(turns, 1, order);
  await taken(turns, 1, order);
  void taken(turns, 1, order);
  const b = taken(turns, 2, order);
  a();
  await b;
  expect(order).toEqual([1, 1, 2]);
});

test("a batch holding its turn past its time no longer holds the others back", async () => {
  const turns = new WriteTurns(1, 100);
  const order: number[] = [];
  const stuck = await taken(turns, 1, order);
  const started = Date.now();
  await taken(turns, 2, order);
  expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  expect(order).toEqual([1, 2]);
  // Its late release changes nothing.
  stuck();
});

test("a wait for a turn ends with the request's database budget (503)", async () => {
  const turns = new WriteTurns(1, 60_000);
  const held = await taken(turns, 1, []);
  const waited = withDatabaseBudget(() => Promise.resolve(turns.take(2)), 150);
  await expect(waited).rejects.toBeInstanceOf(DatabaseDeadlineError);
  held();
  // The one that gave up is gone from the line: the next company is served at once.
  const next = turns.take(3);
  expect(next).toBeFunction();
});
