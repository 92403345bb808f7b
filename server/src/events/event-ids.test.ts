import { expect, test } from "bun:test";
import { cursorAt, eventId, sequenceOf } from "./event-ids.ts";

test("an event id carries its sequence number and is a valid cursor", () => {
  const id = eventId(123_456);
  expect(id).toMatch(/^evt_[0-9a-z]{26}$/);
  expect(sequenceOf(id)).toBe(123_456);
  expect(eventId(1) < eventId(2)).toBe(true);
  expect(sequenceOf("evt_nope")).toBeUndefined();
});

test("a cursor at a sequence number with no event reads back as that number", () => {
  expect(cursorAt(0)).toBe("evt_00000000000000000000000000");
  expect(sequenceOf(cursorAt(42))).toBe(42);
});
