// What a database error means for the request that met it, from the driver's codes (never from
// its message, which may quote SQL and values). Drizzle wraps driver errors: walk the causes.
import { is } from "drizzle-orm";
import { getTableConfig, MySqlTable } from "drizzle-orm/mysql-core";
import * as schema from "./schema.ts";

/** unavailable: the database cannot answer now (503); retryable: the transaction was rolled back
 * whole by a deadlock, a lock wait or a cluster certification conflict, so running it again is
 * safe; duplicate: a unique key refused a row; lock_wait: a lock wait timed out. */
export type DatabaseErrorKind = "unavailable" | "retryable" | "lock_wait" | "duplicate";

/** The code of the error the pool throws when a request's database budget ran out. */
export const DEADLINE_CODE = "ERP_DB_DEADLINE";

const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "PROTOCOL_CONNECTION_LOST",
  "PROTOCOL_SEQUENCE_TIMEOUT",
  "ER_CON_COUNT_ERROR",
  DEADLINE_CODE,
]);
// 1040 too many connections, 1047 a Galera node not ready ("WSREP has not yet prepared node"),
// 1053 shutdown in progress, 1152/1158-1161 aborted or broken connections, 1317 query interrupted,
// 1927 connection killed (MariaDB), 2006/2013 server gone or lost, 3024 MySQL statement timeout,
// 1969 MariaDB statement timeout, 4031 disconnected by the server for inactivity.
const UNAVAILABLE_ERRNOS = new Set([
  1040, 1047, 1053, 1152, 1158, 1159, 1160, 1161, 1317, 1927, 1969, 2006, 2013, 3024, 4031,
]);
// 1213 deadlock or (Galera) certification failure, 1020 "record has changed since last read".
const RETRYABLE_ERRNOS = new Set([1213, 1020]);
const LOCK_WAIT_ERRNO = 1205;
const DUPLICATE_ERRNO = 1062;

/** Thrown by the pool when a request's database budget ran out before the database answered. */
export class DatabaseDeadlineError extends Error {
  readonly code = DEADLINE_CODE;

  constructor(what: string) {
    super(`the database did not answer in time (${what})`);
    this.name = "DatabaseDeadlineError";
  }
}

/**
 * Thrown when a write's COMMIT was sent and whether it committed could not be established (the
 * database stopped answering meanwhile and did not come back in time): never a 503 that says
 * nothing was written (docs/writes-and-retries.md).
 */
export class CommitOutcomeUnknownError extends Error {
  // No `cause`: the error that led here (a lost connection, a deadlock) must not be read as the
  // kind of this one, which is neither safe to run again nor a write that did not happen.
  constructor() {
    super("the database stopped answering while a commit was on its way");
    this.name = "CommitOutcomeUnknownError";
  }
}

function own(error: object): DatabaseErrorKind | undefined {
  const { code, errno, fatal } = error as { code?: unknown; errno?: unknown; fatal?: unknown };
  if (errno === DUPLICATE_ERRNO) return "duplicate";
  if (errno === LOCK_WAIT_ERRNO) return "lock_wait";
  if (typeof errno === "number" && RETRYABLE_ERRNOS.has(errno)) return "retryable";
  if (typeof errno === "number" && UNAVAILABLE_ERRNOS.has(errno)) return "unavailable";
  if (typeof code === "string" && UNAVAILABLE_CODES.has(code)) return "unavailable";
  if (fatal === true) return "unavailable";
  return undefined;
}

/** The kind of the first database error in the cause chain, if any. */
export function databaseErrorKind(error: unknown): DatabaseErrorKind | undefined {
  for (
    let current = error, depth = 0;
    typeof current === "object" && current !== null && depth < 10;
    depth++
  ) {
    const kind = own(current);
    if (kind) return kind;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A short, parameter-free name for logs: the driver's code or errno, never its message. */
export function databaseErrorName(error: unknown): string | undefined {
  for (
    let current = error, depth = 0;
    typeof current === "object" && current !== null && depth < 10;
    depth++
  ) {
    const { code, errno } = current as { code?: unknown; errno?: unknown };
    if (typeof code === "string" || typeof errno === "number")
      return [code, errno].filter((part) => part !== undefined).join(" ");
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** What a log line may say about any error: its database code, else its class name; never its message. */
export function errorLabel(error: unknown): string {
  return databaseErrorName(error) ?? (error instanceof Error ? error.name : typeof error);
}

/** The name of the unique key a duplicate-key error names (MySQL 8 says `table.key`), if any. */
export function duplicateKeyName(error: unknown): string | undefined {
  const message = duplicateMessage(error);
  return message === undefined ? undefined : /for key '(?:[^'.]+\.)?([^']+)'/.exec(message)?.[1];
}

/** The message of a duplicate-key error (the entry and the key it met), if `error` is one. */
function duplicateMessage(error: unknown): string | undefined {
  for (
    let current = error, depth = 0;
    typeof current === "object" && current !== null && depth < 10;
    depth++
  ) {
    const { errno, sqlMessage } = current as { errno?: unknown; sqlMessage?: unknown };
    if (errno === DUPLICATE_ERRNO && typeof sqlMessage === "string") return sqlMessage;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A unique value a client chose: the field, and the table whose live records it is unique among. */
export interface ValueKey {
  field: string;
  table: string;
}

/**
 * The unique keys on values a client chooses (external_id, code, serial_number, a lookup's name), by
 * name. They are the unique keys that include `live`, which ignore deleted records (db/schema.ts); a
 * lookup's is on `name_key`, the key of its `name`.
 */
const VALUE_KEYS = new Map(
  Object.values(schema).flatMap((table) => {
    if (!is(table, MySqlTable)) return [];
    const { name: tableName, indexes } = getTableConfig(table);
    return indexes.flatMap(({ config }): [string, ValueKey][] => {
      const columns = config.columns.map((column) => ("name" in column ? column.name : ""));
      const key = columns.find((name) => name !== "company_id" && name !== "live");
      if (!config.unique || !columns.includes("live") || !key) return [];
      return [[config.name, { field: key.replace(/_key$/, ""), table: tableName }]];
    });
  }),
);

/**
 * The key of the unique custom field a duplicate-key error is about: its entry (company_id-field_id-
 * unique_value) begins its `unique_value` with the field's key (writes/custom-values.ts).
 */
const CUSTOM_VALUE_KEY = "custom_field_values_unique";

/** The unique value a duplicate-key error is about, when a client chose it. */
export function duplicateValueKey(error: unknown): ValueKey | undefined {
  const key = duplicateKeyName(error);
  if (key !== CUSTOM_VALUE_KEY) return key === undefined ? undefined : VALUE_KEYS.get(key);
  const field = /Duplicate entry '\d+-\d+-([a-z][a-z0-9_]*):/.exec(duplicateMessage(error)!)?.[1];
  return field === undefined ? undefined : { field: `custom_fields.${field}`, table: "records" };
}
