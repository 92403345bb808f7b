import { expect, test } from "bun:test";
import {
  DatabaseDeadlineError,
  databaseErrorKind,
  databaseErrorName,
  duplicateValueKey,
} from "./errors.ts";

test("driver errors are classified by code, through wrapping causes", () => {
  expect(databaseErrorKind({ errno: 1062 })).toBe("duplicate");
  expect(databaseErrorKind({ errno: 1205 })).toBe("lock_wait");
  expect(databaseErrorKind(new Error("failed query", { cause: { errno: 1213 } }))).toBe(
    "retryable",
  );
  expect(databaseErrorKind({ code: "ECONNREFUSED" })).toBe("unavailable");
  expect(databaseErrorKind({ errno: 1047, code: "ER_UNKNOWN_COM_ERROR" })).toBe("unavailable");
  expect(databaseErrorKind({ fatal: true })).toBe("unavailable");
  expect(databaseErrorKind(new DatabaseDeadlineError("a statement"))).toBe("unavailable");
  expect(databaseErrorKind(new TypeError("bug"))).toBeUndefined();
});

test("the name for logs is the driver's code, never its message", () => {
  const error = new Error(
    "Failed query: select * from api_tokens where token_hash = ? params: abc",
    { cause: { code: "ER_LOCK_DEADLOCK", errno: 1213, message: "secret" } },
  );
  expect(databaseErrorName(error)).toBe("ER_LOCK_DEADLOCK 1213");
});

test("a duplicate on a value a client chose names its field and table; keys of ids and tokens do not", () => {
  const duplicate = (key: string) => ({
    errno: 1062,
    sqlMessage: `Duplicate entry '5-x-1' for key '${key}'`,
  });
  // MariaDB names the key alone, MySQL 8 as <table>.<key>.
  for (const [key, field, table] of [
    ["workers_external_id", "external_id", "workers"],
    ["equipment.equipment_serial", "serial_number", "equipment"],
    ["projects_code", "code", "projects"],
    ["trades_name_key", "name", "trades"],
  ] as const)
    expect(duplicateValueKey(duplicate(key))).toEqual({ field, table });
  for (const key of ["PRIMARY", "projects_id", "api_tokens_hash", "trades_id"])
    expect(duplicateValueKey(duplicate(key))).toBeUndefined();
  expect(duplicateValueKey({ errno: 1213 })).toBeUndefined();
});

test("a duplicate of a unique custom value names custom_fields.<key> from its entry, on MariaDB and MySQL 8", () => {
  const entry = `12-34-union_no:${"ab".repeat(32)}`;
  for (const key of [
    "custom_field_values_unique",
    "custom_field_values.custom_field_values_unique",
  ])
    expect(
      duplicateValueKey({ errno: 1062, sqlMessage: `Duplicate entry '${entry}' for key '${key}'` }),
    ).toEqual({ field: "custom_fields.union_no", table: "records" });
});
