// The pool's one-statement path (server/src/db/pool.ts): a statement the driver refuses before
// sending it is refused at once with the driver's own error, and its connection goes back to the
// pool; it neither escapes as an uncaught exception nor waits out the request's budget.
import { afterAll, expect, test } from "bun:test";
import { closeTestDb, testDb } from "@erp/testing/company";

afterAll(closeTestDb);

test("a statement the driver refuses at once is refused at once, and the pool stays usable", async () => {
  const { reader } = testDb();
  // More refusals than the test pool's four connections: a connection kept by one would make a later one wait.
  for (let attempt = 0; attempt < 6; attempt++) {
    const started = performance.now();
    await expect(reader.execute("SELECT ? AS a", [undefined])).rejects.toThrow(
      "Bind parameters must not contain undefined",
    );
    expect(performance.now() - started).toBeLessThan(1_000);
  }
  const [rows] = await reader.execute("SELECT 1 AS a", []);
  expect(rows).toEqual([{ a: 1 }]);
});
