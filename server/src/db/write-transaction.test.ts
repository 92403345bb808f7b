import { afterAll, describe, expect, test } from "bun:test";
import { connectDatabase, type DatabaseHandle } from "./client.ts";
import type { GuardedConnection, GuardedPool } from "./pool.ts";
import { sqlRows } from "./sql.ts";
import { inWriteTransaction, rowsStatement } from "./write-transaction.ts";

test("a multi-row statement knows where each row is, in the text it says as a whole", () => {
  const statement = rowsStatement("INSERT INTO t (a) VALUES ", ["(1)", "('x, (y)')", "(3)"], " ;");
  expect(statement.text).toBe("INSERT INTO t (a) VALUES (1), ('x, (y)'), (3) ;");
  const { starts, end } = statement.rows!;
  expect(starts.map((start) => statement.text[start])).toEqual(["(", "(", "("]);
  expect(statement.text.slice(end)).toBe(" ;");
});

/** The writer with every text sent through its connections recorded. */
function recording(writer: GuardedPool, maxTextBytes: number, sent: string[]): GuardedPool {
  return {
    ...writer,
    maxTextBytes,
    getConnection: async () => {
      const connection = await writer.getConnection();
      return Object.assign(Object.create(connection) as GuardedConnection, {
        query: (input: Parameters<GuardedConnection["query"]>[0], values?: unknown) => {
          sent.push(typeof input === "string" ? input : input.sql);
          return connection.query(input, values);
        },
        unbounded: (text: string) => {
          sent.push(text);
          return connection.unbounded(text);
        },
      });
    },
  };
}

const url = process.env.TEST_DATABASE_URL;
describe.skipIf(!url)("a write larger than the database takes in one packet", () => {
  let handle: DatabaseHandle | undefined;
  const table = `packet_test_${process.pid}`;
  afterAll(async () => {
    await handle?.pool.query(`DROP TABLE IF EXISTS ${table}`);
    await handle?.close();
  });

  test("goes in several texts, each within the limit, its rows and the COMMIT last, all written", async () => {
    handle = connectDatabase(url!, { connectionLimit: 2 });
    await handle.pool.query(
      `CREATE TABLE ${table} (id INT PRIMARY KEY, v VARCHAR(100) CHARACTER SET utf8mb4)`,
    );
    const sent: string[] = [];
    const limit = 600;
    const rows: [number, string][] = Array.from({ length: 40 }, (_, id) => [
      id,
      `Zoë 🏗️ 王小明 ${"x".repeat(20)} ${id}`,
    ]);
    const results = await inWriteTransaction(recording(handle.writer, limit, sent), (tx) =>
      tx.commit([
        { text: `DELETE FROM ${table} WHERE id < ?`, values: [0] },
        rowsStatement(`INSERT INTO ${table} (id, v) VALUES `, sqlRows(rows)),
        { text: `UPDATE ${table} SET v = CONCAT(v, '!') WHERE id = 39` },
      ]),
    );
    expect(sent.length).toBeGreaterThan(3);
    expect(sent.filter((text) => Buffer.byteLength(text) > limit)).toEqual([]);
    expect(sent.at(-1)).toEndWith("COMMIT");
    expect(sent.slice(0, -1).filter((text) => text.includes("COMMIT"))).toEqual([]);
    // The INSERT answers as one statement, every row it wrote counted.
    expect(results.map((result) => (result as { affectedRows: number }).affectedRows)).toEqual([
      0, 40, 1,
    ]);
    const [stored] = await handle.pool.query(`SELECT id, v FROM ${table} ORDER BY id`);
    expect((stored as { id: number; v: string }[]).map((row) => [row.id, row.v])).toEqual(
      rows.map(([id, v]) => [id, id === 39 ? `${v}!` : v]),
    );
  });

  test("one that fits goes as one text, as ever", async () => {
    const sent: string[] = [];
    await inWriteTransaction(recording(handle!.writer, 1 << 20, sent), (tx) =>
      tx.commit([rowsStatement(`INSERT INTO ${table} (id, v) VALUES `, sqlRows([[100, "a"]]))]),
    );
    expect(sent).toEqual([`INSERT INTO ${table} (id, v) VALUES (100, 'a');\nCOMMIT`]);
  });
});
