// The start's check of the database server (docs/operations.md, "Database settings"): what the
// server's SQL relies on is read from the database once, fixed per session where it can be (the
// pools then open every connection so), and each problem a session cannot fix is one log line at
// start, naming the setting and what to set, never a 500 later.
import type mysql from "mysql2/promise";
import { log } from "../base/log.ts";
import { type DeclaredTables, differences } from "./character-sets.ts";
import { CHARACTER_SET, TEXT_COLLATION } from "./columns.ts";
import { SQL_MODE, sessionStatements } from "./session.ts";

/** What the pools need to know of the server, and the session settings it needs beyond the common ones. */
export interface ServerFacts {
  galera: boolean;
  session: string[];
  /** Idle connections are closed after this long, before the database's wait_timeout drops them. */
  idleTimeoutMs: number;
  /** The largest text one round trip may send (max_allowed_packet less room for the packet's own bytes). */
  maxTextBytes: number;
}

/**
 * The smallest max_allowed_packet the server is tested with: a write's text larger than the
 * packet is sent in several (db/write-transaction.ts), but one row (a 500-item batch's stored
 * answer, an event with a record's long text before and after) must fit whole.
 */
export const MIN_PACKET_BYTES = 4 * 1024 * 1024;
const PACKET_ROOM = 1024;
/** How long the pools keep an idle connection at most (mysql2's own default). */
const MAX_IDLE_MS = 60_000;
/** Seconds before the database's wait_timeout that a pool closes an idle connection (it looks once a second). */
const IDLE_MARGIN_SECONDS = 2;
/** A wait_timeout shorter than this leaves a pool no time to reuse a connection: sessions raise theirs. */
const SHORTEST_WAIT_SECONDS = 4;
const RAISED_WAIT_SECONDS = 10;
/** Prepared statements one server may keep: 64 on each of its 24 connections (db/client.ts). */
const PREPARED_PER_SERVER = 64 * 24;

type Variables = Map<string, string>;

const GLOBALS = [
  "version",
  "wsrep_on",
  "character_set_server",
  "time_zone",
  "sql_mode",
  "tx_isolation",
  "transaction_isolation",
  "max_allowed_packet",
  "log_bin",
  "binlog_format",
  "read_only",
  "innodb_default_row_format",
  "max_prepared_stmt_count",
  "max_statement_time",
  "max_execution_time",
];

async function variables(
  connection: mysql.Connection,
  scope: "GLOBAL" | "SESSION",
  names: readonly string[],
): Promise<Variables> {
  const [rows] = await connection.query(
    `SHOW ${scope} VARIABLES WHERE Variable_name IN (${names.map(() => "?").join(", ")})`,
    [...names],
  );
  return new Map(
    (rows as { Variable_name: string; Value: string }[]).map((row) => [
      row.Variable_name.toLowerCase(),
      row.Value,
    ]),
  );
}

/** A problem no session setting can fix: one line, with what to change. */
const problem = (message: string, fields: Record<string, unknown>): void =>
  log.warn(`database setting: ${message}`, fields);

/** Tries an assignment on this connection: a session fix the server's user may not be allowed. */
async function allowed(connection: mysql.Connection, assignment: string): Promise<boolean> {
  try {
    await connection.query(`SET ${assignment}`);
    return true;
  } catch {
    return false;
  }
}

/**
 * The fixes this server's sessions need beyond the common ones (db/session.ts): binlog_format ROW
 * where STATEMENT would refuse every write under READ COMMITTED, a statement time limit lifted
 * (each request has its own budget; a migration's ALTER may take minutes), a wait_timeout too
 * short for a pool raised.
 */
async function sessionFixes(connection: mysql.Connection, global: Variables): Promise<string[]> {
  const fixes: string[] = [];
  if (global.get("log_bin") === "ON" && global.get("binlog_format") === "STATEMENT") {
    const fix = "SESSION binlog_format = 'ROW'";
    if (await allowed(connection, fix)) fixes.push(fix);
    else
      problem("binlog_format is STATEMENT, which refuses writes under READ COMMITTED", {
        binlog_format: "STATEMENT",
        set: "binlog_format = ROW (or MIXED), or give the server's user SESSION_VARIABLES_ADMIN",
      });
  }
  for (const name of ["max_statement_time", "max_execution_time"]) {
    const limit = Number(global.get(name) ?? 0);
    if (limit > 0 && (await allowed(connection, `SESSION ${name} = 0`)))
      fixes.push(`SESSION ${name} = 0`);
  }
  const [rows] = await connection.query("SELECT @@session.wait_timeout AS seconds");
  const wait = Number((rows as { seconds: number }[])[0]?.seconds);
  if (wait < SHORTEST_WAIT_SECONDS) fixes.push(`SESSION wait_timeout = ${RAISED_WAIT_SECONDS}`);
  return fixes;
}

/** What a session of ours must read back once set, and what goes wrong when it does not. */
const SESSION_EXPECTED: [name: string, value: string, otherwise: string][] = [
  ["character_set_client", CHARACTER_SET, "text outside the server's character set is refused"],
  ["character_set_connection", CHARACTER_SET, "text outside the server's character set is refused"],
  ["character_set_results", CHARACTER_SET, "text comes back as question marks"],
  ["collation_connection", TEXT_COLLATION, "searches compare text another way"],
  ["time_zone", "+00:00", "timestamps are not UTC"],
  ["sql_mode", SQL_MODE, "statements may mean something else or be refused"],
  ["tx_isolation", "READ-COMMITTED", "checks may read an older state than the latest commit"],
  [
    "transaction_isolation",
    "READ-COMMITTED",
    "checks may read an older state than the latest commit",
  ],
];

/** Warns of each session setting the database did not keep (a proxy between may reset them). */
async function verifySession(connection: mysql.Connection): Promise<void> {
  const session = await variables(
    connection,
    "SESSION",
    SESSION_EXPECTED.map(([name]) => name),
  );
  for (const [name, value, otherwise] of SESSION_EXPECTED) {
    const kept = session.get(name);
    if (kept !== undefined && kept !== value)
      problem(`a session setting did not hold: ${otherwise}`, {
        variable: name,
        set: value,
        is: kept,
      });
  }
}

/** Warns of what only the server's configuration (or its parameter group) can change. */
function globalProblems(global: Variables, maxPacket: number): void {
  if (maxPacket < MIN_PACKET_BYTES)
    problem("max_allowed_packet is below 4 MiB: a large batch's rows may be refused", {
      max_allowed_packet: maxPacket,
      set: "max_allowed_packet = 16M (at least 4M)",
    });
  if (global.get("read_only") === "ON")
    problem("the server is read-only: every write will be refused", { read_only: "ON" });
  if (/^(compact|redundant)$/i.test(global.get("innodb_default_row_format") ?? ""))
    problem("new tables' utf8mb4 keys need the DYNAMIC row format", {
      innodb_default_row_format: global.get("innodb_default_row_format"),
      set: "innodb_default_row_format = DYNAMIC",
    });
  const prepared = Number(global.get("max_prepared_stmt_count") ?? Number.POSITIVE_INFINITY);
  if (prepared < PREPARED_PER_SERVER)
    problem("max_prepared_stmt_count is below what one server prepares", {
      max_prepared_stmt_count: prepared,
      set: `max_prepared_stmt_count = ${PREPARED_PER_SERVER} times the number of servers, or more`,
    });
}

/**
 * Reads the server's settings on the migrating connection, before its session is set: decides the
 * session fixes, warns of what cannot be fixed, and says what the pools need. Then sets the
 * session (with `extra`, for the migrations) and checks it holds.
 */
export async function inspectServer(
  connection: mysql.Connection,
  extra: readonly string[] = [],
): Promise<ServerFacts> {
  const global = await variables(connection, "GLOBAL", GLOBALS);
  const galera = global.get("wsrep_on") === "ON";
  const session = await sessionFixes(connection, global);
  for (const statement of sessionStatements({ galera, extra: [...session, ...extra] }))
    await connection.query(statement);
  await verifySession(connection);
  const maxPacket = Number(global.get("max_allowed_packet"));
  globalProblems(global, maxPacket);
  const [rows] = await connection.query("SELECT @@session.wait_timeout AS seconds");
  const wait = Number((rows as { seconds: number }[])[0]?.seconds);
  const facts: ServerFacts = {
    galera,
    session,
    idleTimeoutMs: Math.min(MAX_IDLE_MS, (wait - IDLE_MARGIN_SECONDS) * 1000),
    maxTextBytes: maxPacket - PACKET_ROOM,
  };
  log.info("database server: each session sets what the server's SQL relies on", {
    version: global.get("version"),
    galera,
    character_set_server: global.get("character_set_server"),
    time_zone: global.get("time_zone"),
    sql_mode: global.get("sql_mode"),
    isolation: global.get("transaction_isolation") ?? global.get("tx_isolation"),
    wait_timeout: wait,
    max_allowed_packet: maxPacket,
    session_fixes: session,
    pool_idle_ms: facts.idleTimeoutMs,
  });
  return facts;
}

/** Warns of each table of ours whose text is not as the migrations declare, or that is not InnoDB. */
export async function checkTables(
  connection: mysql.Connection,
  declared: DeclaredTables,
): Promise<void> {
  for (const difference of await differences(connection, declared))
    for (const column of difference.columns)
      problem("a column's text is not as the migrations declare it", {
        table: difference.table,
        column: column.name,
        collation: column.from,
        declared: column.to,
      });
  const [rows] = await connection.query(
    `SELECT TABLE_NAME AS name, ENGINE AS engine FROM information_schema.TABLES
    WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE' AND ENGINE <> 'InnoDB'`,
  );
  for (const row of rows as { name: string; engine: string }[])
    if (declared.has(row.name))
      problem("a table is not InnoDB: its writes are not transactions", {
        table: row.name,
        engine: row.engine,
        set: `ALTER TABLE \`${row.name}\` ENGINE = InnoDB`,
      });
}
