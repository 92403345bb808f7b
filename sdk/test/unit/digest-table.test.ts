import { describe, expect, test } from "bun:test";
import { DigestTable } from "../../src/import/digest-table.ts";

const digest = (text: string): Uint8Array => Bun.SHA256.hash(text) as Uint8Array;

describe("DigestTable", () => {
  test("finds every digest added, with its numbers, across the table's growth", () => {
    const table = new DigestTable(2, 4);
    for (let i = 0; i < 50_000; i++) {
      expect(table.find(digest(`row ${i}`))).toBe(-1);
      const slot = table.add(digest(`row ${i}`));
      table.set(slot, 0, i);
      table.set(slot, 1, 4_000_000_000 - i);
    }
    expect(table.size).toBe(50_000);
    for (let i = 0; i < 50_000; i += 7) {
      const slot = table.find(digest(`row ${i}`));
      expect(slot).toBeGreaterThanOrEqual(0);
      expect([table.value(slot, 0), table.value(slot, 1)]).toEqual([i, 4_000_000_000 - i]);
    }
    expect(table.find(digest("row 50000"))).toBe(-1);
  });

  test("tells digests apart by their first 128 bits, and refuses one added twice", () => {
    const table = new DigestTable(1);
    const a = new Uint8Array(32);
    const b = new Uint8Array(32);
    b[15] = 1;
    const c = new Uint8Array(32);
    c[31] = 1;
    table.set(table.add(a), 0, 1);
    table.set(table.add(b), 0, 2);
    expect(table.value(table.find(b), 0)).toBe(2);
    // Past the 128 bits kept, c is a.
    expect(table.value(table.find(c), 0)).toBe(1);
    expect(() => table.add(c)).toThrow();
  });
});
