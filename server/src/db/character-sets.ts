// The character sets of the tables. The migrations declare utf8mb4 and a collation on every text
// column (db/columns.ts); tables a database holds from before (created with its default: latin1,
// utf8mb4_general_ci, MySQL 8's utf8mb4_0900_ai_ci) are converted here, after the SQL migrations
// and under the migration lease (db/migrate.ts): one ALTER per table that differs, online where the
// engine allows, each logged. What is converted is what the database says (information_schema),
// so a conversion cut short (a crash, a deploy) goes on where it stopped at the next start.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type mysql from "mysql2/promise";
import { log } from "../base/log.ts";
import { declaration, TEXT_COLLATION } from "./columns.ts";
import { errorLabel } from "./errors.ts";

/** A text column as the migrations declare it: its whole definition, and its collation. */
export interface DeclaredColumn {
  definition: string;
  collation: string;
}

/** Each table's text columns as the migrations declare them, by table and column name. */
export type DeclaredTables = Map<string, Map<string, DeclaredColumn>>;

/** A column of a drizzle-kit snapshot: what the migrations made of it. */
export interface SnapshotColumn {
  name: string;
  type: string;
  notNull: boolean;
  autoincrement?: boolean;
  default?: string | number | boolean;
  onUpdate?: boolean;
  generated?: { as: string; type: string };
}

export interface Snapshot {
  tables: Record<string, { name: string; columns: Record<string, SnapshotColumn> }>;
}

/**
 * The schema as the migrations leave it: drizzle-kit's snapshot of the last migration in the
 * journal. The migrations folder ships with the server, which applies it at every start.
 */
export function latestSnapshot(migrations: string): Snapshot {
  const journal = JSON.parse(readFileSync(join(migrations, "meta", "_journal.json"), "utf8")) as {
    entries: { tag: string }[];
  };
  const last = journal.entries.at(-1);
  if (!last) throw new Error(`no migrations in ${migrations}`);
  const prefix = last.tag.split("_")[0]!;
  return JSON.parse(
    readFileSync(join(migrations, "meta", `${prefix}_snapshot.json`), "utf8"),
  ) as Snapshot;
}

const COLLATION = /\bCOLLATE\s+(\w+)/i;

/**
 * A column's definition as drizzle-kit writes it in a migration's MODIFY COLUMN (type, generated
 * expression, NOT NULL, default), so a converted column is exactly the one a new database has.
 */
const definitionOf = (column: SnapshotColumn): string =>
  [
    column.type,
    column.autoincrement ? " AUTO_INCREMENT" : "",
    column.generated
      ? ` GENERATED ALWAYS AS (${column.generated.as}) ${column.generated.type.toUpperCase()}`
      : "",
    column.notNull ? " NOT NULL" : "",
    column.default !== undefined ? ` DEFAULT ${column.default}` : "",
    column.onUpdate ? " ON UPDATE CURRENT_TIMESTAMP" : "",
  ].join("");

/**
 * The tables the migrations keep for themselves: drizzle's journal of applied migrations and the
 * migration lease (db/migrate.ts), whose text columns hold ASCII but are declared alike.
 */
const BOOKKEEPING: Record<string, Record<string, [type: string, rest: string]>> = {
  __drizzle_migrations: { hash: ["text", " NOT NULL"] },
  erp_migration_lock: { owner: ["char(36)", " NOT NULL"] },
};

/** Every text column the migrations declare: a type with a COLLATE, by table. */
export function declaredTables(snapshot: Snapshot): DeclaredTables {
  const tables: DeclaredTables = new Map();
  for (const table of Object.values(snapshot.tables)) {
    const columns = new Map<string, DeclaredColumn>();
    for (const column of Object.values(table.columns)) {
      const collation = COLLATION.exec(column.type)?.[1];
      if (collation) columns.set(column.name, { definition: definitionOf(column), collation });
    }
    tables.set(table.name, columns);
  }
  for (const [table, columns] of Object.entries(BOOKKEEPING))
    tables.set(
      table,
      new Map(
        Object.entries(columns).map(([name, [type, rest]]) => [
          name,
          {
            definition: `${type} ${declaration(TEXT_COLLATION)}${rest}`,
            collation: TEXT_COLLATION,
          },
        ]),
      ),
    );
  return tables;
}

interface TableState {
  /** The table's default collation. */
  collation: string;
  rowFormat: string;
  /** Each text column's collation. */
  columns: Map<string, string>;
}

/** The database's own account of its tables' text: information_schema. */
async function tableStates(connection: mysql.Connection): Promise<Map<string, TableState>> {
  const [tables] = await connection.query(
    `SELECT TABLE_NAME AS name, TABLE_COLLATION AS collation, ROW_FORMAT AS row_format
    FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE'`,
  );
  const [columns] = await connection.query(
    `SELECT TABLE_NAME AS table_name, COLUMN_NAME AS name, COLLATION_NAME AS collation
    FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND COLLATION_NAME IS NOT NULL`,
  );
  const states = new Map<string, TableState>();
  for (const row of tables as { name: string; collation: string | null; row_format: string }[])
    states.set(row.name, {
      collation: row.collation ?? "",
      rowFormat: row.row_format ?? "",
      columns: new Map(),
    });
  for (const row of columns as { table_name: string; name: string; collation: string }[])
    states.get(row.table_name)?.columns.set(row.name, row.collation);
  return states;
}

/** Where a table's text differs from what the migrations declare: the columns, and its default. */
export interface Difference {
  table: string;
  /** Each column to convert, with the collation it has now. */
  columns: { name: string; from: string; to: string; definition: string }[];
  /** The table's default collation, when it is not the declared one. */
  tableFrom?: string;
  rowFormat: string;
}

/** The tables of ours whose text is not as declared; tables the migrations do not know are left out. */
export async function differences(
  connection: mysql.Connection,
  declared: DeclaredTables,
): Promise<Difference[]> {
  const found: Difference[] = [];
  for (const [table, state] of await tableStates(connection)) {
    const columns = declared.get(table);
    if (!columns) continue;
    const changes = [...columns]
      .filter(([name, column]) => {
        const now = state.columns.get(name);
        return now !== undefined && now !== column.collation;
      })
      .map(([name, column]) => ({
        name,
        from: state.columns.get(name)!,
        to: column.collation,
        definition: column.definition,
      }));
    const tableFrom = state.collation === TEXT_COLLATION ? undefined : state.collation;
    if (changes.length > 0 || tableFrom !== undefined)
      found.push({ table, columns: changes, tableFrom, rowFormat: state.rowFormat });
  }
  return found;
}

/**
 * The ways to run an ALTER, least disruptive first: in place of the table's metadata (INSTANT),
 * rebuilt while writes go on (INPLACE, LOCK=NONE), copied while reads go on (LOCK=SHARED), then as
 * the engine decides. A change between character sets copies the table on MySQL and MariaDB; a
 * collation of a column no index holds may be changed in place.
 */
const ALGORITHMS = ["ALGORITHM=INSTANT", "ALGORITHM=INPLACE, LOCK=NONE", "LOCK=SHARED", ""];
/** The engine cannot run the ALTER that way (or does not know the clause): try the next. */
const NOT_THAT_WAY = new Set([1845, 1846, 1064]);

/**
 * One ALTER of a table: each differing column's declared definition, the table's default, and a
 * row format whose keys fit utf8mb4.
 */
function alterClauses(difference: Difference): string[] {
  return [
    ...difference.columns.map((column) => `MODIFY COLUMN \`${column.name}\` ${column.definition}`),
    `DEFAULT ${declaration(TEXT_COLLATION)}`,
    // Indexes over utf8mb4 columns need up to 1,020 bytes a key part; COMPACT allows 767.
    ...(/^(compact|redundant)$/i.test(difference.rowFormat) ? ["ROW_FORMAT=DYNAMIC"] : []),
  ];
}

async function convertTable(connection: mysql.Connection, difference: Difference): Promise<string> {
  const clauses = alterClauses(difference).join(", ");
  for (const algorithm of ALGORITHMS) {
    try {
      await connection.query(
        `ALTER TABLE \`${difference.table}\` ${clauses}${algorithm ? `, ${algorithm}` : ""}`,
      );
      return algorithm || "DEFAULT";
    } catch (error) {
      const errno = (error as { errno?: number }).errno;
      if (algorithm && errno !== undefined && NOT_THAT_WAY.has(errno)) continue;
      throw error;
    }
  }
  throw new Error("unreachable: the last way has no clause to refuse");
}

/**
 * Converts every table of ours whose text is not as the migrations declare, one after the other.
 * `beforeEach` runs before each table (the lease is renewed there). A table that cannot be
 * converted (values that its new collation holds equal in a unique key) stops the start with a
 * line that names it.
 */
export async function convertTables(
  connection: mysql.Connection,
  declared: DeclaredTables,
  beforeEach: () => Promise<void> = async () => {},
): Promise<Difference[]> {
  const pending = await differences(connection, declared);
  for (const difference of pending) {
    await beforeEach();
    const started = performance.now();
    // What changed, by collation (column names stay out of the log, as statements do).
    const what = {
      table: difference.table,
      columns: difference.columns.length,
      from: [...new Set(difference.columns.map((column) => column.from))],
      to: [...new Set(difference.columns.map((column) => column.to))],
      table_default_was: difference.tableFrom ?? TEXT_COLLATION,
    };
    try {
      const algorithm = await convertTable(connection, difference);
      log.info("converted a table's text to utf8mb4 as the migrations declare it", {
        ...what,
        algorithm,
        ms: Math.round(performance.now() - started),
      });
    } catch (error) {
      // A duplicate key's message names the key and the values: what the operator must change.
      log.error("a table's text could not be converted to utf8mb4; the server does not start", {
        ...what,
        error: errorLabel(error),
        detail: (error as { sqlMessage?: string }).sqlMessage,
      });
      throw error;
    }
  }
  if (pending.length > 0)
    log.info("every table's text is utf8mb4 as the migrations declare it", {
      converted: pending.map((difference) => difference.table),
    });
  return pending;
}
