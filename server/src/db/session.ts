// The settings every connection runs under, whatever the database server's own (docs/operations.md,
// "Database settings"): what the server's SQL relies on is set per session, so an operator's
// defaults (latin1, a time zone, MySQL 8's sql_mode, READ COMMITTED or REPEATABLE READ) change
// nothing a caller sees. Valid on MySQL 8 and MariaDB alike.
import { TEXT_COLLATION } from "./columns.ts";

/** Seconds a statement waits for a row or table lock before it gives up (and is retried). */
const LOCK_WAIT_SECONDS = 5;

/**
 * MySQL 8's default sql_mode, on every server: strict (a value that does not fit is refused, never
 * cut or turned into '?'), and none of the modes that change what the SQL here means: values are
 * written into a write's text with backslash escapes (db/sql.ts), which NO_BACKSLASH_ESCAPES would
 * break; ANSI_QUOTES, PIPES_AS_CONCAT, PAD_CHAR_TO_FULL_LENGTH, SIMULTANEOUS_ASSIGNMENT and
 * MariaDB's ORACLE mode would each change a statement's meaning. ONLY_FULL_GROUP_BY holds every
 * query to what MySQL 8 accepts.
 */
export const SQL_MODE =
  "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE," +
  "ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION";

export interface SessionOptions {
  /** A Galera node: reads wait until this node has applied every earlier commit. */
  galera?: boolean;
  /**
   * Write connections turn autocommit off: their first statement opens the transaction, so a write
   * sends no BEGIN (JDBC's model), and it always ends with the COMMIT or ROLLBACK of
   * db/write-transaction.ts. Every other connection has it on, whatever the server's default.
   */
  autocommit?: boolean;
  /** Assignments the start check found this server needs (db/server-check.ts), e.g. `binlog_format = 'ROW'`. */
  extra?: readonly string[];
}

/**
 * The statements run once on each new connection, before its first one, so a transaction costs
 * only its own statements: utf8mb4 both ways (a server may ignore the client's handshake), UTC,
 * MySQL 8's sql_mode, lock waits far inside a request's budget, READ COMMITTED (every check reads
 * the latest commits; row locks order competing writes), and none of the session limits an
 * operator may default to that would cut a read short or refuse an update (sql_select_limit,
 * sql_safe_updates, max_join_size). The isolation level's variable is named differently on MySQL 8
 * and MariaDB; its SET statement is not.
 */
export function sessionStatements(options: SessionOptions = {}): string[] {
  const variables = [
    `NAMES utf8mb4 COLLATE ${TEXT_COLLATION}`,
    "time_zone = '+00:00'",
    `SESSION sql_mode = '${SQL_MODE}'`,
    `SESSION innodb_lock_wait_timeout = ${LOCK_WAIT_SECONDS}`,
    `SESSION lock_wait_timeout = ${LOCK_WAIT_SECONDS}`,
    `SESSION autocommit = ${options.autocommit === false ? 0 : 1}`,
    "SESSION sql_safe_updates = 0",
    "SESSION sql_select_limit = 18446744073709551615",
    "SESSION sql_big_selects = 1",
    ...(options.galera ? ["SESSION wsrep_sync_wait = 1"] : []),
    ...(options.extra ?? []),
  ];
  return [`SET ${variables.join(", ")}`, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"];
}
