import { expect, test } from "bun:test";
import { DatabaseDeadlineError, databaseErrorKind, databaseErrorName } from "./errors.ts";

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
