// What a token sees of a record (shown.ts): hidden paths taken out of records, changes and events,
// nested ones (a custom field's `custom_fields.<key>`) included, and a write or a query naming one
// refused with the scope.
import { expect, test } from "bun:test";
import { Refusal } from "../refusals/refusal.ts";
import { definitionNamed } from "./registry.ts";
import { Shown } from "./shown.ts";

const workers = definitionNamed("workers");
const hiding = new Shown(
  workers,
  ["hourly_rate", "custom_fields.salary_band"],
  "workers:sensitive",
  true,
);
type Members = Record<string, unknown>;

const record: Members = {
  id: 1,
  name: "Ada",
  hourly_rate: "41.00",
  custom_fields: { salary_band: "B", union_no: "U-1" },
  updated_at: "2026-11-29T10:00:00.000Z",
};

test("a record, its changes and an event lose the hidden paths, nested ones too; the stored record stays whole", () => {
  const shown = {
    id: 1,
    name: "Ada",
    custom_fields: { union_no: "U-1" },
    updated_at: record.updated_at,
  };
  expect(hiding.record(record)).toEqual(shown);
  expect(record.hourly_rate).toBe("41.00");
  expect(hiding.changes<Members>({ hourly_rate: { from: "40.00", to: "41.00" } })).toEqual({});
  expect(
    hiding.data<{ record: Members; changes: Members }>({
      record,
      changes: { name: { from: "A", to: "Ada" } },
    }),
  ).toEqual({
    record: shown,
    changes: { name: { from: "A", to: "Ada" } },
  });
  const read: Members[] = [{ ...record, custom_fields: { ...(record.custom_fields as Members) } }];
  hiding.strip(read);
  expect(read).toEqual([shown]);
});

test("a token that sees everything gets the very objects", () => {
  const all = new Shown(workers, [], "workers:sensitive", false);
  expect(all.record(record)).toBe(record);
  expect(all.visible(["name", "hourly_rate"])).toEqual(["name", "hourly_rate"]);
  expect(hiding.visible(["name", "hourly_rate"])).toEqual(["name"]);
});

test("naming a hidden path in a query or setting it in a write is 403 naming the scope", () => {
  const refusal = (run: () => void) => {
    try {
      run();
      return undefined;
    } catch (error) {
      return error instanceof Refusal ? [error.status, error.code, error.detail] : error;
    }
  };
  const refused = [403, "insufficient_scope", expect.stringContaining("workers:sensitive")];
  expect(refusal(() => hiding.refuseNamed(["name", "hourly_rate"]))).toEqual(refused);
  expect(refusal(() => hiding.refuseWritten({ hourly_rate: null }))).toEqual(refused);
  expect(refusal(() => hiding.refuseWritten({ custom_fields: { salary_band: "C" } }))).toEqual(
    refused,
  );
  expect(refusal(() => hiding.refuseWritten({ name: "x", custom_fields: { union_no: "2" } }))).toBe(
    undefined,
  );
});

test("the ETag of a hiding token's read leaves updated_at out: a hidden change keeps it", () => {
  const later: Members = {
    ...record,
    hourly_rate: "45.00",
    updated_at: "2026-11-29T11:00:00.000Z",
  };
  expect(hiding.etag(later)).toBe(hiding.etag(record));
  expect(hiding.etag({ ...later, name: "Ada L." })).not.toBe(hiding.etag(record));
});

test("an object field's change loses the hidden members on both sides, and goes when nothing else of it changed", () => {
  const band = { custom_fields: { from: { salary_band: "A" }, to: { salary_band: "B" } } };
  expect(hiding.changes<Members>(band)).toEqual({});
  const both = {
    name: { from: "A", to: "Ada" },
    custom_fields: {
      from: { salary_band: "A", union_no: null },
      to: { salary_band: "B", union_no: "U-1" },
    },
  };
  expect(hiding.changes<Members>(both)).toEqual({
    name: { from: "A", to: "Ada" },
    custom_fields: { from: { union_no: null }, to: { union_no: "U-1" } },
  });
  expect(both.custom_fields.to.salary_band).toBe("B");
});
