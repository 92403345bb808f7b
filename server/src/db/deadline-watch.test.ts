// One timer watches every deadline: a wait expires once its deadline has passed, a wait that
// ended never does, and a slot used again belongs to its new wait alone.
import { expect, test } from "bun:test";
import { settleBy, unwatch, watch } from "./deadline-watch.ts";

test("a wait expires once after its deadline, and a wait that ended does not", async () => {
  const expired: string[] = [];
  const soon = watch(Date.now() + 20, () => expired.push("soon"));
  const ended = watch(Date.now() + 20, () => expired.push("ended"));
  unwatch(ended);
  await Bun.sleep(150);
  expect(expired).toEqual(["soon"]);
  unwatch(soon);
  expect(expired).toEqual(["soon"]);
});

test("ending a wait that expired leaves the wait now in its slot watched", async () => {
  const expired: string[] = [];
  const first = watch(Date.now(), () => expired.push("first"));
  await Bun.sleep(100);
  const second = watch(Date.now() + 30, () => expired.push("second"));
  expect(second.slot).toBe(first.slot);
  unwatch(first);
  await Bun.sleep(150);
  expect(expired).toEqual(["first", "second"]);
});

test("settleBy passes on an outcome in time and refuses a late one with its own error", async () => {
  expect(await settleBy(Promise.resolve(7), Date.now() + 1_000, () => new Error("late"))).toBe(7);
  await expect(
    settleBy(
      Bun.sleep(400).then(() => 8),
      Date.now() + 20,
      () => new Error("late"),
    ),
  ).rejects.toThrow("late");
  await expect(
    settleBy(Promise.reject(new Error("own")), Date.now() + 1_000, () => new Error("late")),
  ).rejects.toThrow("own");
});
