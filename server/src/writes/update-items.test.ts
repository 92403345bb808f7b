// A batch update item's if_match: an ETag compared strongly, or an updated_at compared at the
// precision the caller sent (a spreadsheet may keep only the second).
import { expect, test } from "bun:test";
import { etagOf } from "../http/etag.ts";
import { Refusal } from "../refusals/refusal.ts";
import type { StoredRecord } from "../resources/definition.ts";
import { RESOURCES } from "../resources/registry.ts";
import { recordDocument } from "./preconditions.ts";
import { checkItemIfMatch, updateItem } from "./update-items.ts";

const workers = RESOURCES.find((def) => def.name === "workers")!;
const record = { id: 7, name: "Ann", updated_at: "2026-01-31T09:30:00.250Z" } as StoredRecord;

const refusal = (run: () => unknown): string | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return error.code;
  }
};

test("an updated_at matches at the precision sent, in any offset; a later one does not", () => {
  for (const seen of [
    "2026-01-31T09:30:00.250Z",
    "2026-01-31T09:30:00Z",
    "2026-01-31 09:30:00Z",
    "2026-01-31T10:30:00.25+01:00",
  ])
    expect(refusal(() => checkItemIfMatch(seen, record))).toBeUndefined();
  for (const seen of ["2026-01-31T09:30:00.249Z", "2026-01-31T09:29:59Z", "2026-01-31T09:30:01Z"])
    expect(refusal(() => checkItemIfMatch(seen, record))).toBe("precondition_failed");
});

test("an ETag must be the one a GET sends now; a weak one never matches", () => {
  const etag = etagOf(recordDocument(record));
  expect(refusal(() => checkItemIfMatch(etag, record))).toBeUndefined();
  expect(refusal(() => checkItemIfMatch(`W/${etag}`, record))).toBe("precondition_failed");
  expect(refusal(() => checkItemIfMatch(etag, { ...record, name: "Bo" }))).toBe(
    "precondition_failed",
  );
});

test("an item's id, if_match and fields are checked together, every problem at once", () => {
  expect(updateItem(workers, { id: 7, if_match: '"x"', name: "Ann" })).toEqual({
    id: 7,
    ifMatch: '"x"',
    fields: { name: "Ann" },
  });
  try {
    updateItem(workers, { id: "7", if_match: "last tuesday", email: "nope", updated_at: "now" });
    throw new Error("not refused");
  } catch (error) {
    expect(error).toBeInstanceOf(Refusal);
    const fields = ((error as Refusal).body("r").errors ?? []).map((e) => e.field).sort();
    expect(fields).toEqual(["email", "id", "if_match", "updated_at"]);
  }
});
