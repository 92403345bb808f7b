// Write bodies: JSON up to 1 MiB, refused as soon as they pass it, without buffering the rest.
import { expect, test } from "bun:test";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH, nestsDeeperThan, readJsonBody } from "./body.ts";
import { Refusal } from "../refusals/refusal.ts";

const post = (
  body: BodyInit | null,
  headers: Record<string, string> = { "content-type": "application/json" },
) => new Request("http://x/v1/projects", { method: "POST", body, headers });

async function refusal(request: Request): Promise<string> {
  const error = await readJsonBody(request).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Refusal);
  return `${(error as Refusal).status} ${(error as Refusal).code}`;
}

test("JSON is parsed; an empty body is undefined", async () => {
  expect(await readJsonBody(post('{"name":"a"}'))).toEqual({ name: "a" });
  expect(await readJsonBody(post(null))).toBeUndefined();
});

test("not JSON, another media type or bytes that are not UTF-8 are refused", async () => {
  expect(await refusal(post("{name"))).toBe("400 malformed_json");
  expect(await refusal(post("a=b", { "content-type": "application/x-www-form-urlencoded" }))).toBe(
    "415 unsupported_media_type",
  );
  expect(await refusal(post('{"a":1}', {}))).toBe("415 unsupported_media_type");
  expect(await refusal(post(new Uint8Array([0x22, 0xff, 0x22])))).toBe("400 malformed_json");
});

test("a streamed body stops being read once it passes 1 MiB", async () => {
  let pulled = 0;
  const endless = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled += 64 * 1024;
      controller.enqueue(new Uint8Array(64 * 1024));
    },
  });
  expect(await refusal(post(endless))).toBe("413 payload_too_large");
  expect(pulled).toBeLessThan(MAX_BODY_BYTES + 256 * 1024);
});

test(
  "32 levels of objects and arrays are accepted, 33 are refused before parsing, brackets in " +
    "strings do not count",
  async () => {
    const nested = (levels: number): string =>
      `${'{"a":['.repeat(levels / 2)}1${"]}".repeat(levels / 2)}`;
    expect(nestsDeeperThan(nested(32), MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(`[${nested(32)}]`, MAX_JSON_DEPTH)).toBe(true);
    expect(
      nestsDeeperThan(JSON.stringify({ name: "[[[[".repeat(100), note: '\\"{{{{'.repeat(50) }), 2),
    ).toBe(false);
    expect(await readJsonBody(post(nested(32)))).toBeDefined();
    for (const levels of [33, 50_000, 200_000]) {
      const body = `${"[".repeat(levels)}${"]".repeat(levels)}`;
      const error = await readJsonBody(post(body)).then(
        () => undefined,
        (thrown: unknown) => thrown as Refusal,
      );
      expect([error?.status, error?.code]).toEqual([400, "malformed_json"]);
      expect(error?.detail).toContain("deeper than 32 levels");
    }
  },
);
