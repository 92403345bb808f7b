import { describe, expect, test } from "bun:test";
import { closestNames, editDistance, isClose } from "./closest.ts";

describe("closest names", () => {
  test("the edit distance counts insertions, deletions and substitutions", () => {
    expect(editDistance("electrcal", "electrical")).toBe(1);
    expect(editDistance("plumbng", "plumbing")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("kitten", "sitting")).toBe(3);
  });

  test("a name a few typos away is close; one sharing a few letters by chance is not", () => {
    expect(isClose("electrcal", "electrical")).toBe(true);
    expect(isClose("rigger", "roofing")).toBe(false);
  });

  test("up to three candidates, closest first, compared as folded", () => {
    const trades = ["Electrical", "Plumbing", "Painting", "Roofing", "Concrete"];
    const fold = (text: string) => text.trim().toLowerCase();
    expect(closestNames(" ELECTRCAL ", trades, 3, fold)).toEqual(["Electrical"]);
    expect(closestNames("Panting", trades, 3, fold)).toEqual(["Painting"]);
    expect(closestNames("Rigger", trades, 3, fold)).toEqual([]);
    expect(closestNames("aaa", ["aab", "abb", "aaa ", "bbb"], 2)).toEqual(["aab", "aaa "]);
  });
});
