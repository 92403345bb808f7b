// Generated idempotency keys are UUID v4, also where crypto.randomUUID is missing (plain-http pages).
import { afterEach, expect, test } from "bun:test";
import { newIdempotencyKey } from "../../src/core/idempotency-key.ts";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const randomUUID = Object.getOwnPropertyDescriptor(crypto, "randomUUID");

afterEach(() => {
  if (randomUUID) Object.defineProperty(crypto, "randomUUID", randomUUID);
  else delete (crypto as { randomUUID?: unknown }).randomUUID;
});

test("keys are random UUID v4 strings", () => {
  const keys = new Set(Array.from({ length: 100 }, newIdempotencyKey));
  expect(keys.size).toBe(100);
  for (const key of keys) expect(key).toMatch(UUID_V4);
});

test("without crypto.randomUUID the key is built from getRandomValues", () => {
  Object.defineProperty(crypto, "randomUUID", {
    value: undefined,
    configurable: true,
    writable: true,
  });
  const keys = new Set(Array.from({ length: 100 }, newIdempotencyKey));
  expect(keys.size).toBe(100);
  for (const key of keys) expect(key).toMatch(UUID_V4);
});
