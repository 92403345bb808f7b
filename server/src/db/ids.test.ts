import { afterAll, describe, expect, test } from "bun:test";
import { connectDatabase, type DatabaseHandle } from "./client.ts";
import { IdAllocator } from "./ids.ts";
import type { GuardedPool } from "./pool.ts";

/** The pool with each statement it runs counted. */
function counting(pool: GuardedPool, sent: string[]): GuardedPool {
  return {
    ...pool,
    query: (input, values) => {
      sent.push(typeof input === "string" ? input : input.sql);
      return pool.query(input, values);
    },
  };
}

/** Waits until `sent` holds `count` statements and the last one has answered. */
async function settled(sent: string[], count: number): Promise<void> {
  for (let waited = 0; sent.length < count && waited < 5_000; waited += 10) await Bun.sleep(10);
  await Bun.sleep(50);
}

const url = process.env.TEST_DATABASE_URL;
describe.skipIf(!url)("ids reserved in blocks", () => {
  let handle: DatabaseHandle | undefined;
  const table = `ids_test_${process.pid}`;
  afterAll(async () => {
    await handle?.pool.query(`DROP TABLE IF EXISTS ${table}`);
    await handle?.pool.query("DELETE FROM id_blocks WHERE table_name = ?", [table]);
    await handle?.close();
  });

  test("a batch that leaves too few ids for the next one reserves the next block while it runs", async () => {
    handle = connectDatabase(url!, { connectionLimit: 2 });
    await handle.pool.query(`CREATE TABLE ${table} (id BIGINT UNSIGNED PRIMARY KEY)`);
    await handle.pool.query(`INSERT INTO ${table} (id) VALUES (41)`);
    const sent: string[] = [];
    const ids = new IdAllocator(counting(handle.reader, sent));
    const firsts: number[] = [];
    // The first take reserves (the table's row made, then its block): eight batches of 500.
    for (let batch = 0; batch < 8; batch++) firsts.push(await ids.take(table, 500));
    expect(firsts).toEqual(Array.from({ length: 8 }, (_, batch) => 42 + batch * 500));
    // The eighth left nothing for a ninth: its block was asked for then, without anyone waiting.
    await settled(sent, 4);
    const before = sent.length;
    firsts.push(await ids.take(table, 500));
    expect(sent.length).toBe(before);
    expect(firsts.at(-1)).toBe(42 + 8 * 500);
    // A take larger than what is left drops it and goes on after it: ids only grow.
    const larger = await ids.take(table, 4_000);
    expect(larger).toBeGreaterThan(firsts.at(-1)! + 499);
  });

  test("after a resync, ids start past every id the table holds", async () => {
    const sent: string[] = [];
    const ids = new IdAllocator(counting(handle!.reader, sent));
    const first = await ids.take(table, 10);
    await handle!.pool.query(`INSERT INTO ${table} (id) VALUES (?)`, [first + 5_000]);
    await ids.resync(table);
    expect(await ids.take(table, 10)).toBeGreaterThan(first + 5_000);
  });
});
