// The adapter's own tests: values written into a text as literals (and read back unchanged by the
// database), placeholders filled in order, and the three ways a statement runs.
import { afterAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { connectDatabase, type DatabaseHandle } from "./client.ts";
import {
  executePrepared,
  fillPlaceholders,
  runStatement,
  selectRows,
  selectUncommitted,
  sqlLiteral,
  sqlRows,
  unsignedInteger,
} from "./sql.ts";

/** Strings an escaping mistake would break or turn into SQL of their own. */
const HOSTILE = [
  "",
  "plain",
  "it's",
  "''",
  "back\\slash",
  "\\'",
  "ends with a backslash\\",
  "nul\0byte",
  "ctrl-z\x1a",
  "a ? in it",
  "?",
  "line\nbreak\r\ttab",
  '{"json": "with \\"quotes\\""}',
  "' OR 1=1 -- ",
  "'); DROP TABLE companies; --",
  "ünïcödé ✓ 𝄞 🏗️",
  "%_ like wildcards",
];

test("a value becomes its SQL literal", () => {
  expect(sqlLiteral(null)).toBe("NULL");
  expect(sqlLiteral(undefined)).toBe("NULL");
  expect(sqlLiteral(42)).toBe("42");
  expect(sqlLiteral(-1.5)).toBe("-1.5");
  expect(sqlLiteral(2n ** 64n)).toBe("18446744073709551616");
  expect(sqlLiteral(true)).toBe("TRUE");
  expect(sqlLiteral(false)).toBe("FALSE");
  expect(sqlLiteral("plain")).toBe("'plain'");
  expect(sqlLiteral(new Uint8Array([0, 255, 16]))).toBe("X'00ff10'");
  expect(sqlLiteral([1, "a", null])).toBe("1, 'a', NULL");
});

test("a quote, a backslash, NUL and Ctrl-Z are escaped; nothing else is", () => {
  expect(sqlLiteral("it's")).toBe("'it\\'s'");
  expect(sqlLiteral("back\\slash")).toBe("'back\\\\slash'");
  expect(sqlLiteral("nul\0byte")).toBe("'nul\\0byte'");
  expect(sqlLiteral("ctrl-z\x1a")).toBe("'ctrl-z\\Z'");
  expect(sqlLiteral('line\n"quoted"')).toBe("'line\n\"quoted\"'");
});

test("a value SQL cannot hold is refused, not written", () => {
  expect(() => sqlLiteral(Number.NaN)).toThrow(/finite/);
  expect(() => sqlLiteral(Number.POSITIVE_INFINITY)).toThrow(/finite/);
  expect(() => sqlLiteral({ an: "object" })).toThrow(/cannot be a object/);
  expect(() => sqlLiteral(() => 1)).toThrow(/cannot be a function/);
});

test("rows become (…), (…)", () => {
  expect(
    sqlRows([
      [1, "a"],
      [2, null],
    ]),
  ).toEqual(["(1, 'a')", "(2, NULL)"]);
});

test("placeholders are filled in order, and a ? inside a value is not one", () => {
  expect(fillPlaceholders("SELECT ? AS a, ? AS b", ["x?", 2])).toBe("SELECT 'x?' AS a, 2 AS b");
  expect(fillPlaceholders("WHERE id IN (?)", [[1, 2, 3]])).toBe("WHERE id IN (1, 2, 3)");
  expect(fillPlaceholders("SELECT 1", [])).toBe("SELECT 1");
});

test("placeholders and values that do not pair up are refused", () => {
  expect(() => fillPlaceholders("SELECT ?, ?", [1])).toThrow(/2 placeholders and 1 values/);
  expect(() => fillPlaceholders("SELECT ?", [1, 2])).toThrow(/1 placeholders and 2 values/);
});

const url = process.env.TEST_DATABASE_URL;
describe.skipIf(!url)("against the database (TEST_DATABASE_URL, set by `bun run test`)", () => {
  let handle: DatabaseHandle;
  const table = `sql_test_${process.pid}`;
  afterAll(async () => {
    await runStatement(handle.db, sql.raw(`DROP TABLE IF EXISTS ${table}`));
    await handle.close();
  });

  test("every hostile string written as a literal reads back unchanged", async () => {
    handle = connectDatabase(url!, { connectionLimit: 2 });
    const text = HOSTILE.map((_, index) => `SELECT ${index} AS i, ? AS v`).join(" UNION ALL ");
    const rows = await selectRows<{ i: number; v: string }>(
      handle.db,
      sql.raw(fillPlaceholders(text, HOSTILE)),
    );
    expect(rows.sort((a, b) => a.i - b.i).map((row) => row.v)).toEqual(HOSTILE);
    const [bytes] = await selectRows<{ hex: string }>(
      handle.db,
      sql.raw(fillPlaceholders("SELECT HEX(?) AS hex", [new Uint8Array([0, 39, 92, 255])])),
    );
    expect(bytes!.hex).toBe("00275CFF");
  });

  test("a statement answers what it did; a select answers its rows", async () => {
    await runStatement(handle.db, sql.raw(`CREATE TABLE ${table} (id INT PRIMARY KEY, v TEXT)`));
    const inserted = await runStatement(
      handle.db,
      sql.raw(
        `INSERT INTO ${table} (id, v) VALUES ${sqlRows(HOSTILE.map((v, i) => [i, v])).join(", ")}`,
      ),
    );
    expect(inserted.affectedRows).toBe(HOSTILE.length);
    const rows = await selectRows<{ v: string }>(
      handle.db,
      sql`SELECT v FROM ${sql.raw(table)} WHERE v = ${"it's"}`,
    );
    expect(rows).toEqual([{ v: "it's" }]);
    const deleted = await runStatement(
      handle.db,
      sql`DELETE FROM ${sql.raw(table)} WHERE id >= ${2}`,
    );
    expect(deleted.affectedRows).toBe(HOSTILE.length - 2);
  });

  test("a prepared statement runs on a handle the adapter made, not in a drizzle transaction", async () => {
    const rows = await executePrepared<{ v: string }[]>(
      handle.db,
      `SELECT v FROM ${table} WHERE id = ?`,
      [unsignedInteger(1)],
    );
    expect(rows).toEqual([{ v: "plain" }]);
    await expect(
      handle.db.transaction((tx) => executePrepared(tx, "SELECT 1", [])),
    ).rejects.toThrow(/made by drizzleOver/);
  });

  test("a read uncommitted sees what another transaction inserted and has not committed", async () => {
    const other = await handle.writer.getConnection();
    try {
      // Write connections run with autocommit off: the INSERT opens a transaction left open.
      await other.query(`INSERT INTO ${table} (id, v) VALUES (99, 'pending')`);
      const text = `SELECT v FROM ${table} WHERE id = ?`;
      expect(await selectUncommitted(handle.writer, text, [99])).toEqual([{ v: "pending" }]);
      expect(await executePrepared<unknown[]>(handle.db, text, [99])).toEqual([]);
    } finally {
      await other.query("ROLLBACK");
      other.release();
    }
  });
});
