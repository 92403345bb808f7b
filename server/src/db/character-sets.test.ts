import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { is } from "drizzle-orm";
import { getTableConfig, MySqlTable, mysqlTable, varchar } from "drizzle-orm/mysql-core";
import mysql from "mysql2/promise";
import { declaredTables, differences, latestSnapshot } from "./character-sets.ts";
import { EXACT_COLLATION, TEXT_COLLATION, varchar as declaredVarchar } from "./columns.ts";
import * as schema from "./schema.ts";

const MIGRATIONS = join(import.meta.dir, "..", "..", "drizzle");
/** SQL types that hold text, and so have a character set. */
const TEXT_TYPE = /^(var)?char\b|^(tiny|medium|long)?text\b|^enum\b|^set\b/i;
const DECLARED = new RegExp(
  `\\bCHARACTER SET utf8mb4 COLLATE (${TEXT_COLLATION}|${EXACT_COLLATION})$`,
);

const tables = (Object.values(schema) as unknown[]).filter((value): value is MySqlTable =>
  is(value, MySqlTable),
);

/** `table.column type` of each text column that does not declare utf8mb4 and one of our collations. */
function undeclared(of: readonly MySqlTable[]): string[] {
  return of.flatMap((table) => {
    const config = getTableConfig(table);
    return config.columns
      .map((column) => [column.name, column.getSQLType()] as const)
      .filter(([, type]) => TEXT_TYPE.test(type) && !DECLARED.test(type))
      .map(([name, type]) => `${config.name}.${name} ${type}`);
  });
}

test("every text column of the schema declares utf8mb4 and its collation", () => {
  expect(tables.length).toBeGreaterThan(10);
  expect(undeclared(tables)).toEqual([]);
  // The check catches a column built with drizzle's own builder, not db/columns.ts's.
  const careless = mysqlTable("careless", {
    declared: declaredVarchar("declared", { length: 10 }),
    note: varchar("note", { length: 10 }),
  });
  expect(undeclared([careless])).toEqual(["careless.note varchar(10)"]);
});

test("the migrations declare it too: the last snapshot's text columns are the schema's", () => {
  const snapshot = latestSnapshot(MIGRATIONS);
  const migrated = Object.values(snapshot.tables).flatMap((table) =>
    Object.values(table.columns)
      .filter((column) => TEXT_TYPE.test(column.type))
      .map((column) => `${table.name}.${column.name} ${column.type}`),
  );
  expect(migrated.filter((column) => !DECLARED.test(column))).toEqual([]);
  const inSchema = tables.flatMap((table) => {
    const config = getTableConfig(table);
    return config.columns
      .filter((column) => TEXT_TYPE.test(column.getSQLType()))
      .map((column) => `${config.name}.${column.name} ${column.getSQLType()}`);
  });
  // A text column changed in schema.ts and not generated (drizzle-kit generate) fails here.
  expect(migrated.sort()).toEqual(inSchema.sort());
});

test("a converted column gets the whole definition a migration gives it", () => {
  const declared = declaredTables(latestSnapshot(MIGRATIONS));
  expect(declared.get("api_tokens")?.get("scopes")).toEqual({
    definition: `varchar(1000) CHARACTER SET utf8mb4 COLLATE ${TEXT_COLLATION} NOT NULL DEFAULT '*'`,
    collation: TEXT_COLLATION,
  });
  expect(declared.get("workers")?.get("external_id")?.collation).toBe(EXACT_COLLATION);
  expect(declared.get("events")?.get("id")?.definition).toMatch(
    /^char\(30\) CHARACTER SET utf8mb4 COLLATE \w+ GENERATED ALWAYS AS \(CONCAT\(.*\)\) VIRTUAL$/,
  );
  // Tables without text are declared too (their default character set is converted).
  expect(declared.get("equipment_rentals")?.size).toBe(0);
  expect(declared.get("__drizzle_migrations")?.get("hash")?.collation).toBe(TEXT_COLLATION);
});

test("table names are lower case, so lower_case_table_names never matters", () => {
  const names = [...declaredTables(latestSnapshot(MIGRATIONS)).keys()];
  expect(names.filter((name) => name !== name.toLowerCase())).toEqual([]);
});

const url = process.env.TEST_DATABASE_URL;
describe.skipIf(!url)("the migrated test database (TEST_DATABASE_URL)", () => {
  let connection: mysql.Connection | undefined;
  afterAll(async () => {
    await connection?.end();
  });

  test("every table and text column is as declared, whatever the server's default", async () => {
    connection = await mysql.createConnection({ uri: url! });
    const declared = declaredTables(latestSnapshot(MIGRATIONS));
    expect(await differences(connection, declared)).toEqual([]);
    const [rows] = await connection.query(
      `SELECT TABLE_NAME AS name, COLUMN_NAME AS col, CHARACTER_SET_NAME AS charset
      FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND CHARACTER_SET_NAME IS NOT NULL`,
    );
    const ours = (rows as { name: string; col: string; charset: string }[]).filter((row) =>
      declared.has(row.name),
    );
    expect(ours.length).toBeGreaterThan(50);
    expect(ours.filter((row) => row.charset !== "utf8mb4")).toEqual([]);
  });
});
