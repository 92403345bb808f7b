// What a key is bound to: the same request in any key order, never two different requests.
import { expect, test } from "bun:test";
import { canonicalJson, fingerprintOf } from "./fingerprint.ts";

test("key order does not matter, at any depth", () => {
  expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } })).toBe(
    '{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}',
  );
  expect(fingerprintOf("post", "/v1/x", false, { a: 1, b: 2 })).toBe(
    fingerprintOf("POST", "/v1/x", false, { b: 2, a: 1 }),
  );
});

test("a __proto__ member is data, so two bodies that differ in it differ", () => {
  const withProto = JSON.parse('{"name":"a","__proto__":{"x":1}}');
  expect(canonicalJson(withProto)).toBe('{"__proto__":{"x":1},"name":"a"}');
  expect(fingerprintOf("POST", "/v1/x", false, withProto)).not.toBe(
    fingerprintOf("POST", "/v1/x", false, { name: "a" }),
  );
});

test("method, path and the dry-run flag are part of it", () => {
  const body = { name: "a" };
  const base = fingerprintOf("POST", "/v1/x", false, body);
  expect(fingerprintOf("PATCH", "/v1/x", false, body)).not.toBe(base);
  expect(fingerprintOf("POST", "/v1/y", false, body)).not.toBe(base);
  expect(fingerprintOf("POST", "/v1/x", true, body)).not.toBe(base);
});

test("the text is JSON.stringify's, keys sorted: members it leaves out stay out, arrays keep their places", () => {
  const value = { z: [1, undefined, 'x\u2028"y'], a: { c: undefined, b: -0, d: 1e21 }, m: true };
  const sorted = { a: { b: -0, d: 1e21 }, m: true, z: [1, undefined, 'x\u2028"y'] };
  expect(canonicalJson(value)).toBe(JSON.stringify(sorted));
});

test("a body nested 5,000 deep does not exhaust the stack", () => {
  const deep = JSON.parse(`${"[".repeat(5000)}${"]".repeat(5000)}`);
  expect(fingerprintOf("POST", "/v1/x", false, deep)).toMatch(/^[0-9a-f]{64}$/);
});

test("the fields a caller does not see bind a key too; none leaves the fingerprint as it was", () => {
  const body = { name: "a" };
  const base = fingerprintOf("PATCH", "/v1/workers/1", false, body);
  expect(fingerprintOf("PATCH", "/v1/workers/1", false, body, [])).toBe(base);
  expect(fingerprintOf("PATCH", "/v1/workers/1", false, body, ["hourly_rate"])).not.toBe(base);
});
