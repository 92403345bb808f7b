// An update import's diff of a row against its record: custom values compared key by key, only the
// keys that differ sent (the API merges them), numbers compared as numbers.
import { describe, expect, test } from "bun:test";
import { narrowUpdates } from "../../src/import/record-diff.ts";

const RECORD = {
  id: 7,
  name: "Ann",
  hourly_rate: "45.00",
  custom_fields: { union_no: "U-1", allowance: "120.50", size: "12.5", card: null, union: true },
};

/** One row diffed against RECORD. */
async function narrowed(
  row: Record<string, unknown>,
): Promise<{ body: Record<string, unknown> | undefined; unchanged: boolean }> {
  const bodies: Record<string, unknown>[] = [{ id: 7, ...row }];
  const unchanged = await narrowUpdates(
    bodies,
    { hourly_rate: "amount, e.g. 1250.00" },
    async () => [structuredClone(RECORD)],
  );
  return { body: bodies[0], unchanged: unchanged.has(0) };
}

describe("custom values in an update's diff", () => {
  test("the same values, numbers written otherwise and empty ones: unchanged, nothing sent", async () => {
    expect(
      await narrowed({
        name: "Ann",
        custom_fields: {
          union_no: "U-1",
          allowance: "120.5",
          size: "12.50",
          card: "",
          union: true,
        },
      }),
    ).toEqual({ body: { id: 7 }, unchanged: true });
  });

  test("only the keys that differ are sent", async () => {
    expect(
      await narrowed({
        hourly_rate: "45",
        custom_fields: { union_no: "U-2", allowance: "120.50", card: "2027-01-31", union: false },
      }),
    ).toEqual({
      body: { id: 7, custom_fields: { union_no: "U-2", card: "2027-01-31", union: false } },
      unchanged: false,
    });
  });

  test("a cleared value is sent as null", async () => {
    expect(await narrowed({ custom_fields: { union_no: null } })).toEqual({
      body: { id: 7, custom_fields: { union_no: null } },
      unchanged: false,
    });
  });
});
