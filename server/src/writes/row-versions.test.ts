// A record's updated_at as its version: it only moves forward, and a refused guard is told apart.
import { expect, test } from "bun:test";
import { nextVersion, RowChangedError, rowChanged } from "./row-versions.ts";

test("an update's updated_at is now, or a millisecond after the one read when the clock is behind it", () => {
  const now = new Date("2026-11-26T09:00:00.000Z");
  expect(nextVersion("2026-11-26T08:59:59.999Z", now)).toEqual(now);
  expect(nextVersion("2026-11-26T09:00:00.000Z", now).toISOString()).toBe(
    "2026-11-26T09:00:00.001Z",
  );
  expect(nextVersion("2026-11-26T09:00:05.250Z", now).toISOString()).toBe(
    "2026-11-26T09:00:05.251Z",
  );
  // A resource without timestamps reads none.
  expect(nextVersion(undefined, now)).toEqual(now);
});

test("the guard's refusal and a write told to run again are recognised, wrapped or not", () => {
  expect(rowChanged({ errno: 1690 })).toBe(true);
  expect(rowChanged(new Error("wrapped", { cause: { errno: 1690 } }))).toBe(true);
  expect(rowChanged(new RowChangedError())).toBe(true);
  expect(rowChanged({ errno: 1213 })).toBe(false);
  expect(rowChanged(new Error("other"))).toBe(false);
});
