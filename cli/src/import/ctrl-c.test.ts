// Ctrl-C during an import: the first stops it, a later one quits at once, a script runner's echo
// of the same keystroke is not a second one, and after the end nothing changes the outcome.
import { expect, test } from "bun:test";
import { CtrlC } from "./ctrl-c.ts";

function pressed(sameKeystrokeMs: number) {
  const calls: string[] = [];
  const ctrlC = new CtrlC(sameKeystrokeMs, {
    first: () => void calls.push("first"),
    second: () => void calls.push("second"),
  });
  return { ctrlC, calls };
}

test("once stops, twice quits at once", () => {
  const { ctrlC, calls } = pressed(0);
  ctrlC.press(1000);
  expect(ctrlC.interrupted).toBe(true);
  ctrlC.press(1001);
  expect(calls).toEqual(["first", "second"]);
});

test("under a script runner, the same keystroke twice within the window is one Ctrl-C", () => {
  const { ctrlC, calls } = pressed(500);
  ctrlC.press(1000);
  ctrlC.press(1200);
  expect(calls).toEqual(["first"]);
  ctrlC.press(1600);
  expect(calls).toEqual(["first", "second"]);
});

test("once the import has ended, a Ctrl-C neither stops nor marks it", () => {
  const { ctrlC, calls } = pressed(0);
  ctrlC.end();
  ctrlC.press(1000);
  expect(ctrlC.interrupted).toBe(false);
  expect(calls).toEqual([]);
});
